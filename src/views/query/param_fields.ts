/**
 * The form fields of a query's parameters: a text, number or date box, or a select of choices
 * (fixed `options`, or `options_sql` read from the query's database), each with its label and
 * current value (the request's, else the default).
 *
 * @module
 */

import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { ParameterType, QueryParameters } from "./query_params.ts";

/** One field of the parameters form (docs/templates.md). */
export interface ParameterField {
  name: string;
  label: string;
  value: string;
  type: ParameterType;
  /** The choices of a select, the current one `selected`; null for a plain input. */
  options: { value: string; label: string; selected: boolean }[] | null;
  /** Why the choices could not be read (`options_sql` failed): the field is then a text box. */
  options_error?: string;
}

/** Choices `options_sql` may list at most. */
const MAX_OPTIONS = 1000;

/** The fields for `params.form`, with `values` filled in. */
export async function parameterFields(
  db: Database,
  params: QueryParameters,
  values: Record<string, string>,
): Promise<ParameterField[]> {
  const fields: ParameterField[] = [];
  for (const name of params.form) {
    const spec = params.specs.get(name);
    const value = values[name] ?? "";
    const field: ParameterField = {
      name,
      label: spec?.label ?? name,
      value,
      type: spec?.type ?? "text",
      options: null,
    };
    let choices = spec?.options ?? null;
    if (spec?.options_sql) {
      try {
        const results = await db.execute(spec.options_sql, null, {
          page_size: MAX_OPTIONS,
          log_sql_errors: false,
        });
        choices = results.values.map((row) => ({
          value: String(row[0] ?? ""),
          label: String(row[row.length > 1 ? 1 : 0] ?? ""),
        }));
      } catch (error) {
        field.options_error = `Choices for ${name}: ${(error as Error).message}`;
      }
    }
    if (choices) {
      field.options = choices.map((choice) => ({ ...choice, selected: choice.value === value }));
      // A value from the URL that is not one of the choices stays visible and selected.
      if (value !== "" && !field.options.some((option) => option.selected)) {
        field.options.unshift({ value, label: value, selected: true });
      }
    }
    fields.push(field);
  }
  return fields;
}
