/**
 * `/<db>/-/query.blob?sql=…&_blob_column=c&_blob_hash=h` (and `/<db>/<canned query>.blob?…`): one
 * BLOB cell of a query's result as a download, as the reference's blob renderer answers it. The row is the one whose cell's
 * SHA-256 is `_blob_hash` (the first row without it): a link stays right while the row moves, and
 * says so when the bytes changed. Query pages link their BLOB cells here.
 *
 * @module
 */

import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import { attachment } from "../../http/content_disposition.ts";
import { sha256Hex } from "../../util/hash.ts";
import { cssClass } from "../../render/css_class.ts";
import { formatPath } from "../../render/output_format.ts";
import type { QueryOutcome } from "./query_run.ts";

const BLOB_COLUMN = "_blob_column";
const BLOB_HASH = "_blob_hash";

/** The download link of `value`, a BLOB cell of `column` on this query page (same URL, `.blob`). */
export function queryBlobPath(request: Request, column: string, value: Uint8Array): string {
  const args = new URLSearchParams(request.query_string);
  args.delete(BLOB_COLUMN);
  args.delete(BLOB_HASH);
  args.set(BLOB_COLUMN, column);
  args.set(BLOB_HASH, sha256Hex(value));
  return formatPath(request, "blob", args);
}

/**
 * The cell `_blob_column` / `_blob_hash` name in `outcome`, as `application/binary`.
 *
 * @throws {BadRequest} without `_blob_column`, for a column the result lacks, or when no row's
 *   cell has that hash any more
 */
export function queryBlobResponse(request: Request, outcome: QueryOutcome): Response {
  if (outcome.error !== null) throw new BadRequest(outcome.error);
  const column = request.args.get(BLOB_COLUMN);
  if (column === null) throw new BadRequest(`?${BLOB_COLUMN}= is required`);
  const index = outcome.columns.indexOf(column);
  if (index < 0) throw new BadRequest(`${column} is not a valid column`);
  const hash = request.args.get(BLOB_HASH);
  const row = hash === null
    ? outcome.rows[0]
    : outcome.rows.find((r) => r[index] instanceof Uint8Array && sha256Hex(r[index]) === hash);
  if (hash !== null && !row) {
    throw new BadRequest(
      "Link has expired - the requested binary content has changed or could not be found.",
    );
  }
  const value = row?.[index];
  // Text or a number in that column downloads as its bytes; NULL (or no row) as an empty file.
  const bytes = value instanceof Uint8Array
    ? value
    : new TextEncoder().encode(value === null || value === undefined ? "" : String(value));
  const name = [cssClass(column), ...(hash ? [hash.slice(0, 6)] : [])].join("-");
  return new Response(bytes, {
    content_type: "application/binary",
    headers: {
      "content-disposition": attachment(`${name}.blob`),
      "x-content-type-options": "nosniff",
    },
  });
}
