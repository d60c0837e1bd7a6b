/**
 * A read answered through the query cache: the key of what the file holds, the statement, its
 * parameters and the answer's limits; the rows kept once, and each caller given its own copy
 * only when it reads them. Apart from `Database.execute`, which decides whether a read may be
 * cached at all.
 *
 * @module
 */

import type { BindParams } from "../sqlite/values.ts";
import { QueryCache } from "./query_cache.ts";
import { encodePage, type ReadRequest } from "./read_query.ts";
import { Results } from "./results.ts";

/**
 * `request`'s answer from `cache` under `contents` (what the file holds now), or `read()`'s,
 * kept for the next caller; `onMiss` hears when `read()` runs. `maxBytes` is the byte cap the
 * answer was read under.
 */
export async function readThroughCache(
  cache: QueryCache,
  contents: string,
  request: ReadRequest,
  params: BindParams | null | undefined,
  maxBytes: number,
  read: () => Promise<Results>,
  onMiss: () => void,
): Promise<Results> {
  // A JSON page keeps its rows' JSON too, written for these options.
  const json = request.json ? `,${JSON.stringify(request.json)}` : "";
  const key = QueryCache.key(
    contents,
    request.sql,
    params,
    `${request.maxRows},${maxBytes}${json}`,
  );
  const kept = await cache.getShared(key, async () => {
    onMiss();
    const results = await read();
    const answer = {
      columns: results.columns,
      rows: results.values,
      truncated: results.truncated,
      real_columns: results.real_columns,
    };
    // Rows read on this thread come without their JSON: written once, here, for every hit.
    const page = results.page ?? (request.json ? encodePage(request, answer) : null);
    return { ...answer, page };
  });
  // Each caller gets its own copy of the rows, made only if it reads them.
  return Results.lazy({
    columns: kept.columns,
    truncated: kept.truncated,
    real_columns: kept.real_columns,
    count: kept.rows.length,
    rows: () => kept.rows.map((row) => row.slice()),
    page: kept.page ?? null,
  });
}
