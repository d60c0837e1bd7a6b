/**
 * A plugin for row_stream_test.ts: the SQL function `kill_read_worker()` ends the read worker that
 * runs it (as a crash would), and answers 1 anywhere else.
 */
export function prepare_connection({ conn }: {
  conn: { create_function(name: string, args: number, fn: () => number): void };
}): void {
  conn.create_function("kill_read_worker", 0, () => {
    const scope = globalThis as unknown as { WorkerGlobalScope?: unknown; close(): void };
    if (scope.WorkerGlobalScope !== undefined) scope.close();
    return 1;
  });
}
