/**
 * Every export against the `sqlite3` shell (/usr/bin/sqlite3): CSV, TSV, NDJSON and JSON × labels
 * off/on × a page or every row (`_stream=on`; JSON: `_size=max`) × identity, gzip and br × before
 * and after a write × a table, a view and custom SQL. One served database, one real HTTP server;
 * each body is parsed and compared with what the shell answers for the same SQL on the same file.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";
import { rawGet, served } from "./_raw_http.ts";

const SQLITE3 = "/usr/bin/sqlite3";

/** More rows than a stream's first page (1,000), so streams also read following chunks. */
const ROWS = 1100;
const PAGE = 7;
const MAX_ROWS = 20;

function buildDb(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-matrix-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table artists (id integer primary key, name text);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 30)
    insert into artists select i, 'Artist ' || i || case i % 3 when 0 then ', "the"' else '' end
    from n;
    create table albums (id integer primary key, title text, artist_id integer
      references artists(id), price real, note text);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
    insert into albums select i,
      case i % 5 when 0 then 'comma, "quoted"' when 1 then 'émoji 🌳' when 2 then 'line' ||
        char(13, 10) || 'break' when 3 then ' lead' else 'plain ' || i end,
      case when i % 7 = 0 then null else 1 + i % 30 end,
      case when i % 4 = 0 then i else i / 4.0 end,
      case when i % 6 = 0 then null when i % 6 = 1 then '' else 'tab' || char(9) || i end
    from n;
    create view cheap as select id, title, price from albums where price < 100 order by id;`);
  conn.close();
  return path;
}

/** What a source is exported as, and the SQL `sqlite3` answers for it. */
interface Source {
  name: string;
  /** The export's path before its extension, and its own arguments. */
  path: string;
  args: string;
  /** The SQL of every row, in the export's order; with labels when it has foreign keys. */
  sql: (labels: boolean) => string;
  /** True when `_size` pages it (tables and views); custom SQL pages by `max_returned_rows`. */
  sized: boolean;
}

const QUERY = "select title, price, id, note from albums where id % 3 != 0 order by price desc, id";

const SOURCES: Source[] = [
  {
    name: "table",
    path: "/data/albums",
    args: "",
    sql: (labels) =>
      labels
        ? "select a.id, a.title, a.artist_id, (select name from artists where id = a.artist_id) " +
          "as artist_id_label, a.price, a.note from albums a order by a.id"
        : "select * from albums order by id",
    sized: true,
  },
  {
    name: "view",
    path: "/data/cheap",
    args: "",
    sql: () => "select * from cheap",
    sized: true,
  },
  {
    name: "custom SQL",
    path: "/data/-/query",
    args: `sql=${encodeURIComponent(QUERY)}`,
    sql: () => QUERY,
    sized: false,
  },
];

function sqlite3(path: string, args: string[], sql: string): string {
  const out = new Deno.Command(SQLITE3, { args: [...args, path, sql] }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** RFC 4180 fields (either line end), as both Vitrine's and the shell's CSV are read. */
function parseDelimited(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || (c === "\r" && text[i + 1] === "\n")) {
      if (c === "\r") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field !== "" || row.length) rows.push([...row, field]);
  return rows;
}

/** The shell's answer as the export would give it. */
function expected(
  path: string,
  format: string,
  sql: string,
  labelled: boolean,
): unknown {
  if (format === "csv" || format === "tsv") {
    const delimiter = format === "csv" ? "," : "\t";
    return parseDelimited(
      sqlite3(path, ["-csv", "-header", "-separator", delimiter], sql),
      delimiter,
    );
  }
  const text = sqlite3(path, ["-json"], sql).trim();
  const rows = (text ? JSON.parse(text) : []) as Record<string, unknown>[];
  if (format === "json" && labelled) {
    // JSON labels: `{"value", "label"}` in place of a non-null key, no `_label` column.
    for (const row of rows) {
      if (row.artist_id !== null) {
        row.artist_id = { value: row.artist_id, label: row.artist_id_label };
      }
      delete row.artist_id_label;
    }
  }
  return rows;
}

/** An export body parsed as `expected` gives the shell's answer. */
function parsed(format: string, text: string): unknown {
  if (format === "csv") return parseDelimited(text, ",");
  if (format === "tsv") return parseDelimited(text, "\t");
  if (format === "ndjson") return text.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  return JSON.parse(text);
}

/**
 * Numbers as both sides print them can differ only in form (`1.0e+20`), never in value: cells
 * that are both numbers compare as numbers.
 */
function sameCells(actual: unknown, wanted: unknown): unknown {
  if (!Array.isArray(actual) || !Array.isArray(wanted)) return actual;
  return actual.map((row, r) =>
    Array.isArray(row)
      ? row.map((cell, c) => {
        const other = (wanted[r] as unknown[] | undefined)?.[c];
        const numeric = (v: unknown) => typeof v === "string" && v !== "" && !isNaN(Number(v));
        return numeric(cell) && numeric(other) && Number(cell) === Number(other) ? other : cell;
      })
      : row
  );
}

Deno.test("exports match sqlite3: formats × labels × page/stream × codings × before/after a write × sources", async (t) => {
  const path = buildDb();
  await using svc = new Service({
    files: [path],
    secret: "matrix",
    settings: { max_returned_rows: MAX_ROWS },
    metadata: { databases: { data: { permissions: { "insert-row": { id: "writer" } } } } },
  });
  await using server = await served(svc);
  let checked = 0;
  const run = async (phase: string) => {
    for (const source of SOURCES) {
      for (const labels of [false, true]) {
        for (const whole of [false, true]) {
          for (const format of ["csv", "tsv", "ndjson", "json"]) {
            const args = new URLSearchParams(source.args);
            // Labels only exist on tables with foreign keys; elsewhere `_labels=on` changes nothing.
            const labelled = labels && source.name === "table" && format !== "ndjson";
            if (labels) args.set("_labels", "on");
            if (format === "json") args.set("_shape", "array");
            let limit: number | null;
            if (whole && format !== "json") {
              args.set("_stream", "on");
              limit = null;
            } else if (whole || !source.sized) {
              // JSON is not streamed: its most is one page of `max_returned_rows`.
              if (source.sized) args.set("_size", "max");
              limit = MAX_ROWS;
            } else {
              args.set("_size", String(PAGE));
              limit = PAGE;
            }
            const sql = source.sql(labelled) + (limit === null ? "" : ` limit ${limit}`);
            const want = expected(path, format, sql, labelled);
            for (const coding of [null, "gzip", "br"]) {
              const url = `${source.path}.${format}?${args}`;
              const what = `${phase}: ${url} ${coding ?? "identity"}`;
              const response = await rawGet(
                server.port,
                url,
                coding ? { "accept-encoding": coding } : {},
              );
              assert.equal(response.status, 200, `${what}: ${response.text.slice(0, 300)}`);
              assert.equal(response.complete, true, what);
              const got = parsed(format, response.text);
              assert.deepEqual(sameCells(got, want), want, what);
              checked++;
            }
          }
        }
      }
    }
  };
  await t.step("before a write", () => run("before"));
  const inserted = await fetch(`${server.url}/data/albums/-/insert`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${svc.create_token("writer", {})}`,
    },
    body: JSON.stringify({
      rows: [
        { title: 'new, "one"', artist_id: 2, price: 0.5, note: "x\ny" },
        { title: "new two", artist_id: null, price: 12, note: null },
        { title: "ünïcode", artist_id: 3, price: 99.75, note: "" },
      ],
    }),
  });
  assert.equal(inserted.status, 201, await inserted.text());
  await t.step("after a write", () => run("after"));
  assert.equal(checked, 2 * 3 * 2 * 2 * 4 * 3);
});
