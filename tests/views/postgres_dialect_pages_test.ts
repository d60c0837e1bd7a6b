/**
 * The PostgreSQL dialect on what only PostgreSQL has (issue 43): native arrays and `jsonb`
 * arrays in array facets and `arraycontains`, `timestamptz` and `date` columns in date facets
 * and `__date`, a `tsvector` column searched and ranked, text that is no JSON beside text that
 * is, case-insensitive `contains` on a non-text column, and a table without a key paged by
 * offset in storage order — against a real throw-away cluster.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { pgAvailable, startCluster } from "../fixtures/pg_cluster.ts";

const HAVE_PG = pgAvailable("PostgreSQL dialect page tests");

const SCHEMA = `
create table docs (
  id int primary key,
  title text,
  labels text[],
  meta jsonb,
  loose text,
  seen timestamptz,
  due date,
  doc tsvector generated always as (to_tsvector('english', coalesce(title, ''))) stored
);
insert into docs (id, title, labels, meta, loose, seen, due) values
  (1, 'Running dogs', '{a,b,b}', '["x", "y"]', '["p"]', '2024-01-02 10:00+00', '2024-01-02'),
  (2, 'A dog runs', '{b}', '["y"]', 'not json [', '2024-01-02 23:00+00', '2024-01-03'),
  (3, 'Cats', '{}', '{"k": 1}', '[1,', '2024-02-01 00:00+00', null),
  (4, 'Birds', null, null, '["p", "q"]', null, '2024-02-01');
create table shapes (id int primary key, raw json, spot point, kind text);
insert into shapes values (1, '{"a": 1}', '(1,2)', 'x'), (2, '[1]', '(3,4)', 'x'), (3, null, null, 'y');
create table events (at int, what text);
insert into events select n, 'event ' || n from generate_series(1, 7) as n;
`;

Deno.test({
  name: "PostgreSQL: arrays, dates, tsvector search and keyless paging through the dialect",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startCluster();
    const svc = new Service({ postgres: [`app=${cluster.url("app")}`] });
    try {
      await cluster.psql("create database app");
      await cluster.psql(SCHEMA, "app");
      const json = async (path: string) => {
        const response = await svc.client.get(path);
        assert.equal(response.status, 200, `${path}: ${response.text.slice(0, 400)}`);
        return response.json<Record<string, unknown>>();
      };
      const ids = async (query: string) =>
        ((await json(`/app/docs.json?_shape=array&_col=id&${query}`)) as unknown as {
          id: number;
        }[]).map((row) => row.id);
      const facet = async (query: string, name: string) => {
        const page = await json(`/app/docs.json?${query}`) as {
          facet_results: {
            results: Record<string, { results: { value: unknown; count: number }[] }>;
          };
        };
        return page.facet_results.results[name].results.map((r) => [r.value, r.count]);
      };

      await t.step(
        "array facets count native arrays, jsonb arrays and JSON text, once a row",
        async () => {
          assert.deepEqual(await facet("_facet_array=labels", "labels"), [["b", 2], ["a", 1]]);
          assert.deepEqual(await facet("_facet_array=meta", "meta"), [["y", 2], ["x", 1]]);
          // "not json [" and "[1," are skipped, not an error for the whole page.
          assert.deepEqual(await facet("_facet_array=loose", "loose"), [["p", 2], ["q", 1]]);
        },
      );

      await t.step("arraycontains and arraynotcontains on each kind", async () => {
        assert.deepEqual(await ids("labels__arraycontains=b"), [1, 2]);
        assert.deepEqual(await ids("meta__arraycontains=x"), [1]);
        assert.deepEqual(await ids("loose__arraycontains=q"), [4]);
        assert.deepEqual(await ids("labels__arraynotcontains=a"), [2, 3, 4]);
      });

      await t.step("date facets and __date on timestamptz and date columns", async () => {
        assert.deepEqual(await facet("_facet_date=seen", "seen"), [
          ["2024-01-02", 2],
          ["2024-02-01", 1],
        ]);
        assert.deepEqual(await facet("_facet_date=due", "due"), [
          ["2024-01-02", 1],
          ["2024-01-03", 1],
          ["2024-02-01", 1],
        ]);
        assert.deepEqual(await ids("seen__date=2024-01-02"), [1, 2]);
        assert.deepEqual(await ids("due__date=2024-02-01"), [4]);
      });

      await t.step(
        "a tsvector column is searched with its own configuration, best first",
        async () => {
          // English stemming: "run" finds "Running" and "runs".
          assert.deepEqual(await ids("_search=run"), [1, 2]);
          // "dog" twice in a title ranks above once.
          await cluster.psql("insert into docs (id, title) values (5, 'Dog eat dog')", "app");
          const ranked = await ids("_search=dog&_sort=_rank");
          assert.equal(ranked[0], 5);
          assert.deepEqual(ranked.sort(), [1, 2, 5]);
          assert.deepEqual(await ids("_search=cats or birds&_searchmode=raw"), [3, 4]);
          assert.deepEqual(await ids("_search=nothing"), []);
        },
      );

      await t.step("contains ignores case, and works on a non-text column", async () => {
        assert.deepEqual(await ids("title__contains=DOG"), [1, 2, 5]);
        assert.deepEqual(await ids("id__contains=3"), [3]);
        assert.deepEqual(await ids("title__glob=*s"), [1, 2, 3, 4]);
        assert.deepEqual(await ids("title__glob=*S"), []);
      });

      await t.step(
        "columns without equality (json, point) leave suggestions to the others",
        async () => {
          const page = await json("/app/shapes.json?_extra=suggested_facets") as {
            suggested_facets: { name: string }[];
          };
          assert.deepEqual(page.suggested_facets.map((s) => s.name), ["kind"]);
          const html = await svc.client.get("/app/shapes");
          assert.equal(html.status, 200);
          // Asked for all the same, it is the request's error, said in PostgreSQL's words.
          const asked = await svc.client.get("/app/shapes.json?_facet=raw");
          assert.equal(asked.status, 400);
          assert.match(
            asked.json<{ error: string }>().error,
            /^Cannot facet by raw: could not identify an? \w+ operator for type json$/,
          );
        },
      );

      await t.step("a table without a key pages by offset in storage order", async () => {
        const seen: unknown[] = [];
        let path: string | null = "/app/events.json?_size=3";
        while (path) {
          const page = await json(path) as { rows: { at: number }[]; next_url: string | null };
          seen.push(...page.rows.map((row) => row.at));
          path = page.next_url
            ? new URL(page.next_url).pathname + new URL(page.next_url).search
            : null;
        }
        assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7]);
      });
    } finally {
      await svc.close();
      await cluster.stop();
    }
  },
});
