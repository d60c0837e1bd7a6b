/**
 * The `vitrine` command: `deno run -A cli.ts data.db` serves a database.
 *
 * In a compiled binary this file is also where read workers start: the pool starts them from
 * this same module (see `src/util/assets.ts`), so the program is one file. Both branches import
 * lazily, so a worker never evaluates the CLI and the CLI never evaluates the worker. From
 * source, workers start from `src/app/read_worker.ts` itself, and in a bundle from that module's
 * own bundle, embedded in the program: a worker's module loader reads and parses every module
 * its entry can import, even lazily, and from here that is the whole program (about 260 modules)
 * for the 35 a worker runs: each worker booted in 30 ms instead of 20 from source, and in 55 ms
 * instead of 20 from a bundle, holding 12–14 MB more.
 *
 * @module
 */
import {
  embeddedReadWorkerUrl,
  isReadWorkerThread,
  setReadWorkerEntry,
} from "./src/util/assets.ts";

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
    const embeddedWorker = embeddedReadWorkerUrl();
    if (embeddedWorker !== null) setReadWorkerEntry(embeddedWorker);
    else if (!import.meta.url.endsWith(".ts") || Deno.build.standalone) {
      setReadWorkerEntry(import.meta.url);
    }
    // Started without Vitrine's V8 flags, a server restarts itself with them (same process id).
    const { restartWithV8Flags } = await import("./src/cli/v8_restart.ts");
    restartWithV8Flags(Deno.args);
    const { main } = await import("./src/cli/main.ts");
    Deno.exit(await main(Deno.args));
  }
}
