import assert from "node:assert/strict";

Deno.test("streaming CSV of a table larger than the heap finishes: rows are never all in memory", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-csv-memory-" });
  const script = new URL("../fixtures/scripts/stream_csv.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    // A 48 MB old space; the CSV below is about 65 MB.
    args: [
      "run",
      "-A",
      "--no-lock",
      "--v8-flags=--max-old-space-size=48",
      script,
      `${dir}/big.db`,
      "700000",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr.slice(-2000));
  const bytes = Number(new TextDecoder().decode(output.stdout).trim());
  assert.ok(bytes > 60_000_000, `only ${bytes} bytes arrived`);
  Deno.removeSync(dir, { recursive: true });
});
