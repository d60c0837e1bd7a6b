/**
 * A plugin for contention_test.ts: `wait_ms(n)` blocks its thread for n milliseconds without using
 * the CPU, as a thread waiting for a core on a busy machine does.
 */
export function prepare_connection(
  { conn }: {
    conn: { create_function(name: string, n: number, fn: (ms: number) => number): void };
  },
): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  conn.create_function("wait_ms", 1, (ms: number) => {
    Atomics.wait(cell, 0, 0, ms);
    return ms;
  });
}
