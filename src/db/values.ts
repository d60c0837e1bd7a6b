/**
 * The value types of the data layer, as the layers above it name them: they reach SQLite only
 * through `src/db/`, never through the binding itself.
 *
 * @module
 */
export type { BindParams, SqlValue } from "../sqlite/values.ts";
export { compileOptions, sqliteVersion } from "../sqlite/mod.ts";
