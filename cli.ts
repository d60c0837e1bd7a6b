/**
 * The `vitrine` command: `deno run -A cli.ts data.db` serves a database.
 *
 * This file is also where read workers start when Vitrine runs as a program: the pool starts
 * them from this same module (see `src/util/assets.ts`), so a bundle or a compiled binary is one
 * file. Both branches import lazily, so a worker never evaluates the CLI and the CLI never
 * evaluates the worker.
 *
 * @module
 */
import { isReadWorkerThread, setReadWorkerEntry } from "./src/util/assets.ts";

if (import.meta.main) {
  if (isReadWorkerThread()) {
    // The pool posts its first messages at once; until the worker module has loaded there is no
    // handler, and a message event without one is lost. Hold them, then hand them over.
    const early: unknown[] = [];
    const hold = (event: Event) => early.push((event as MessageEvent).data);
    globalThis.addEventListener("message", hold);
    await import("./src/app/read_worker.ts");
    globalThis.removeEventListener("message", hold);
    for (const data of early) globalThis.dispatchEvent(new MessageEvent("message", { data }));
  } else {
    setReadWorkerEntry(import.meta.url);
    const { main } = await import("./src/cli/main.ts");
    Deno.exit(await main(Deno.args));
  }
}
