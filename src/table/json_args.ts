/**
 * The arguments that shape a JSON page of rows (API-DETAILS §2.2), read once per request:
 * `_shape`, `_json=` columns, `_nl`, `_json_infinity` and `_extra=`. Table pages read them as part
 * of their `TableRequest`; query and row pages read them where their JSON is written.
 *
 * @module
 */

import { BadRequest } from "../http/errors.ts";
import { valueAsBoolean } from "../util/value_as_boolean.ts";
import { argList, type ArgsLike } from "./args.ts";

/** The recognised `_shape` values. */
export const SHAPES = ["objects", "arrays", "array", "arrayfirst", "object"] as const;
/** One `_shape` value. */
export type Shape = typeof SHAPES[number];

/** `_shape` from the args (default `objects`); anything else → 400 `Invalid _shape: x`. */
export function parseShape(args: ArgsLike, defaultShape: Shape = "objects"): Shape {
  const given = args.get("_shape");
  if (!given) return defaultShape;
  if (!(SHAPES as readonly string[]).includes(given)) {
    throw new BadRequest(`Invalid _shape: ${given}`);
  }
  return given as Shape;
}

/** True when `_json_infinity=on` asks to keep `Infinity` / `-Infinity` values. */
export function keepInfinity(args: ArgsLike): boolean {
  return valueAsBoolean(args.get("_json_infinity")) === true;
}

/** What a JSON page of rows is asked to look like. */
export interface JsonArgs {
  shape: Shape;
  /** `_json=` columns whose text is parsed into JSON. */
  json_columns: string[];
  /** `_nl=on`: one row per line (with `_shape=array`). */
  nl: boolean;
  /** `_json_infinity=on`. */
  infinity: boolean;
  /** `_extra=` names, repeatable and comma-separated, in order. */
  extras: string[];
}

/** The `_extra=` arguments. */
export type ExtraArgs = Pick<JsonArgs, "extras">;

/** Reads `_extra=` (any format may carry extras: plugin renderers get them too). */
export function parseExtraArgs(args: ArgsLike): ExtraArgs {
  const given = argList(args, "_extra");
  return { extras: given.flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean) };
}

/** Reads the JSON arguments (a bad `_shape` is a 400). */
export function parseJsonArgs(args: ArgsLike): JsonArgs {
  return {
    shape: parseShape(args),
    json_columns: argList(args, "_json"),
    nl: valueAsBoolean(args.get("_nl")) === true,
    infinity: keepInfinity(args),
    ...parseExtraArgs(args),
  };
}
