/**
 * A plugin for scheduling_test.ts that reports its thread's nice value: while its module loads
 * (part of a read worker's boot), into the file `VITRINE_TEST_NICE_FILE` names, and from queries,
 * as `thread_nice()`.
 */
import { withLibc } from "../../src/util/libc.ts";

function threadNice(): number {
  return withLibc(
    { getpriority: { parameters: ["i32", "u32"], result: "i32" } },
    ({ getpriority }) => getpriority(0, 0),
    0,
  );
}

const file = Deno.env.get("VITRINE_TEST_NICE_FILE");
if (file) Deno.writeTextFileSync(file, `${threadNice()}\n`, { append: true });

export function prepare_connection(
  { conn }: { conn: { create_function(name: string, args: number, fn: () => number): void } },
): void {
  conn.create_function("thread_nice", 0, threadNice);
}
