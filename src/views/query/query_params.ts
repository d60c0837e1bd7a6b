/**
 * Named parameters of custom SQL and canned queries (SPEC "Named parameters"): which ones become
 * form fields, and the values bound when the query runs. Values are always strings; a parameter
 * the client did not supply binds as "". Parameters starting with `_` are magic: canned queries
 * get them from the registry, typed SQL never does (they stay unbound, i.e. NULL).
 */
import type { Request } from "../../http/request.ts";
import { HttpError } from "../../http/errors.ts";
import { detectNamedParameters, isMagicParameter } from "../../util/sql.ts";
import { fillMagicParameters, type MagicParameters } from "./magic_parameters.ts";

/** A parameter's kind of field: a text box, a number box or a date picker. */
export type ParameterType = "text" | "number" | "date";

/**
 * How a canned or stored query describes one parameter, when its `params` entry is an object:
 * `{name, label, default, options: [...] | options_sql: "select …", type}`. A bare string entry
 * is just the name.
 */
export interface ParameterSpec {
  name: string;
  label: string | null;
  /** The value used when the request does not give one. */
  default: string | null;
  type: ParameterType;
  /** Fixed choices: values, or `{value, label}` objects. */
  options: { value: string; label: string }[] | null;
  /** Choices read from the query's database: first column the value, second (if any) the label. */
  options_sql: string | null;
}

/** The parameters of one query. */
export interface QueryParameters {
  /** Every parameter the SQL names (form and magic ones), in first-seen order. */
  all: string[];
  /** The parameters shown as form fields: explicit `params`, else detected; never magic. */
  form: string[];
  /** Labels, defaults, choices and types of the parameters the `params` list describes. */
  specs: Map<string, ParameterSpec>;
}

/**
 * The parameters of `sql`; `explicit` is a canned query's `params` list, when it has one. Its
 * entries are names or {@link ParameterSpec} objects; an object without a text `name` is a
 * configuration mistake that names the query's parameter list, not a TypeError later.
 */
export function queryParameters(sql: string, explicit?: unknown): QueryParameters {
  const detected = detectNamedParameters(sql);
  const specs = new Map<string, ParameterSpec>();
  const declared = Array.isArray(explicit)
    ? explicit.map((entry) => {
      if (entry === null || typeof entry !== "object") return String(entry);
      const spec = parameterSpec(entry as Record<string, unknown>);
      specs.set(spec.name, spec);
      return spec.name;
    })
    : detected;
  const form = declared.filter((name) => !isMagicParameter(name));
  // An explicit list may name parameters the detector missed; bind those too.
  const all = [...new Set([...detected, ...form])];
  return { all, form, specs };
}

function parameterSpec(entry: Record<string, unknown>): ParameterSpec {
  if (typeof entry.name !== "string" || !entry.name) {
    throw new HttpError(500, `A query parameter needs a "name": ${JSON.stringify(entry)}`);
  }
  const text = (value: unknown) => value === null || value === undefined ? null : String(value);
  const type = entry.type === "number" || entry.type === "date" ? entry.type : "text";
  const options = Array.isArray(entry.options)
    ? entry.options.map((option) => {
      if (option && typeof option === "object") {
        const { value, label } = option as Record<string, unknown>;
        return { value: String(value ?? ""), label: String(label ?? value ?? "") };
      }
      return { value: String(option), label: String(option) };
    })
    : null;
  return {
    name: entry.name,
    label: text(entry.label),
    default: text(entry.default),
    type,
    options,
    options_sql: typeof entry.options_sql === "string" ? entry.options_sql : null,
  };
}

/** True when every form parameter has a default: such a query runs before its form is sent. */
export function allHaveDefaults(params: QueryParameters): boolean {
  return params.form.every((name) => params.specs.get(name)?.default != null);
}

/**
 * Form field values from `source` (query string or POST body); a missing one is its default
 * from `params` (when given), else "".
 */
export function formValues(
  names: string[],
  source: { get(key: string): string | null | undefined },
  params?: QueryParameters,
): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => [name, source.get(name) ?? params?.specs.get(name)?.default ?? ""]),
  );
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
    if (isMagicParameter(name)) continue;
    // A JSON body's null stays NULL; only a parameter nobody sent becomes "".
    const value = Object.hasOwn(values, name) ? values[name] : "";
    // A number parameter binds as a number (`limit :n` needs one); anything else as text.
    const numeric = params.specs.get(name)?.type === "number" && typeof value === "string" &&
      /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value);
    bound[name] = numeric ? Number(value) : value;
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
