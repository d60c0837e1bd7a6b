/** The `vitrine` command: `deno run -A cli.ts data.db` serves a database. */
import { main } from "./src/cli/main.ts";

if (import.meta.main) Deno.exit(await main(Deno.args));
