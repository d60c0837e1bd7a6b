/** `_dl=1` downloads of tables whose names are not Latin-1 (RFC 6266 `filename*`). */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";
import { tilde_encode } from "../../src/util/tilde.ts";

Deno.test("_dl=1 on a table named outside Latin-1 downloads with filename* and an ASCII stand-in", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-dl-" });
  const conn = Connection.open(`${dir}/fixtures.db`, { mode: "rwc" });
  conn.exec(`create table "𝐜𝐢𝐭𝐢𝐞𝐬" (id integer primary key, name text);
    insert into "𝐜𝐢𝐭𝐢𝐞𝐬" values (1, 'Köln'), (2, 'Zürich');
    create table "line
break" (id integer primary key);`);
  conn.close();
  await using svc = new Service({ files: [`${dir}/fixtures.db`] });
  for (const stream of ["", "&_stream=on"]) {
    for (const format of ["csv", "tsv", "ndjson"]) {
      const url = `/fixtures/${tilde_encode("𝐜𝐢𝐭𝐢𝐞𝐬")}.${format}?_dl=1${stream}`;
      const response = await svc.client.get(url);
      assert.equal(response.status, 200, url);
      assert.equal(
        response.headers.get("content-disposition"),
        `attachment; filename="cities.${format}"; filename*=UTF-8''${
          encodeURIComponent("𝐜𝐢𝐭𝐢𝐞𝐬")
        }.${format}`,
      );
      assert.match(response.text, /Köln/);
    }
  }
  const odd = await svc.client.get(`/fixtures/${tilde_encode("line\nbreak")}.csv?_dl=1`);
  assert.equal(odd.status, 200);
  assert.equal(
    odd.headers.get("content-disposition"),
    "attachment; filename=\"line_break.csv\"; filename*=UTF-8''line%0Abreak.csv",
  );
});
