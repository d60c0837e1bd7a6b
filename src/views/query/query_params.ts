/**
 * Named parameters of custom SQL and canned queries (SPEC "Named parameters"): which ones become
 * form fields, and the values bound when the query runs. Values are always strings; a parameter
 * the client did not supply binds as "". Parameters starting with `_` are magic: canned queries
 * get them from the registry, typed SQL never does (they stay unbound, i.e. NULL).
 */
import type { Request } from "../../http/request.ts";
import { detectNamedParameters, isMagicParameter } from "../../util/sql.ts";
import { fillMagicParameters, type MagicParameters } from "./magic_parameters.ts";

/** The parameters of one query. */
export interface QueryParameters {
  /** Every parameter the SQL names (form and magic ones), in first-seen order. */
  all: string[];
  /** The parameters shown as form fields: explicit `params`, else detected; never magic. */
  form: string[];
}

/** The parameters of `sql`; `explicit` is a canned query's `params` list, when it has one. */
export function queryParameters(sql: string, explicit?: unknown): QueryParameters {
  const detected = detectNamedParameters(sql);
  const declared = Array.isArray(explicit) ? explicit.map(String) : detected;
  const form = declared.filter((name) => !isMagicParameter(name));
  // An explicit list may name parameters the detector missed; bind those too.
  const all = [...new Set([...detected, ...form])];
  return { all, form };
}

/** Form field values from `source` (query string or POST body); missing ones are "". */
export function formValues(
  names: string[],
  source: { get(key: string): string | null | undefined },
): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, source.get(name) ?? ""]));
}

/**
 * The values to bind for a canned query: the client's values for non-magic parameters and the
 * service's for magic ones (a client can never supply `_actor_id` itself).
 */
export function cannedBindValues(
  params: QueryParameters,
  values: Record<string, string | null>,
  request: Request,
  registry: MagicParameters,
): Record<string, unknown> {
  const bound: Record<string, unknown> = {};
  for (const name of params.all) {
    // A JSON body's null stays NULL; only a parameter nobody sent becomes "".
    if (!isMagicParameter(name)) bound[name] = Object.hasOwn(values, name) ? values[name] : "";
  }
  const magic = params.all.filter(isMagicParameter);
  return { ...bound, ...fillMagicParameters(magic, request, registry) };
}

/** The values to bind for typed SQL: non-magic parameters only, missing ones as "". */
export function customSqlBindValues(
  params: QueryParameters,
  values: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    params.all.filter((name) => !isMagicParameter(name)).map((name) => [name, values[name] ?? ""]),
  );
}
