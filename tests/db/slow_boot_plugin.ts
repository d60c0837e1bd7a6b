/** A plugin for scheduling_test.ts: loading it takes 1.5 s, like a cold start on a busy machine. */
await new Promise((resolve) => setTimeout(resolve, 1500));

export function prepare_connection(): void {}
