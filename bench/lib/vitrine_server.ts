/**
 * `vitrine serve` for the load benchmark, under a command line of its own (`bench/lib/…`), so the
 * benchmark's server process is easy to tell apart from any other Vitrine on the machine.
 *
 *   deno run -A bench/lib/vitrine_server.ts serve -i bench.db --port 8500
 */
import { main } from "../../src/cli/main.ts";

if (import.meta.main) Deno.exit(await main(Deno.args));
