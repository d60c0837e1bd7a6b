/**
 * `_col=` / `_nocol=` (API-DETAILS §4): which columns a table page selects. Primary keys are
 * always kept with `_col` (example 24) and may not be dropped with `_nocol`.
 *
 * @module
 */

import { argList, type ArgsLike, hasArg } from "./args.ts";
import { TableArgsError } from "./errors.ts";

/** Columns to select, in table order for `_nocol` and pks-then-requested order for `_col`. */
export function columnsToSelect(args: ArgsLike, tableColumns: string[], pks: string[]): string[] {
  let columns = [...tableColumns];
  if (hasArg(args, "_col")) {
    const wanted = argList(args, "_col");
    const bad = wanted.filter((column) => !tableColumns.includes(column));
    if (bad.length) throw new TableArgsError(`_col=${bad.join(", ")} - invalid columns`);
    columns = [...new Set([...pks, ...wanted])];
  }
  if (hasArg(args, "_nocol")) {
    const unwanted = argList(args, "_nocol");
    const bad = unwanted.filter((column) => !tableColumns.includes(column) || pks.includes(column));
    if (bad.length) throw new TableArgsError(`_nocol=${bad.join(", ")} - invalid columns`);
    columns = columns.filter((column) => !unwanted.includes(column));
  }
  return columns;
}
