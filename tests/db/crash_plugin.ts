/** A plugin for pool_test.ts: its prepare_connection kills the read worker in several ways. */
export function prepare_connection({ database }: { database: string }): void {
  if (database === "throw_later") {
    setTimeout(() => {
      throw new Error("boom later");
    }, 0);
  }
  if (database === "deno_exit") Deno.exit(3);
  if (database === "self_close") (self as unknown as { close(): void }).close();
}
