/**
 * The file pages starting touched are given back once a server listens (`releaseFilePages`,
 * called by `vitrine serve`): a process's resident pages mapped from files drop, and it goes on
 * running the code it needs.
 */
import assert from "node:assert/strict";
import { fileMappings } from "../../src/util/startup_pages.ts";

const STARTUP_PAGES = new URL("../../src/util/startup_pages.ts", import.meta.url).href;

/** MADV_PAGEOUT came with Linux 5.4. */
function kernelHasPageout(): boolean {
  if (Deno.build.os !== "linux") return false;
  const [major, minor] = Deno.osRelease().split(".").map(Number);
  return major > 5 || (major === 5 && minor >= 4);
}

Deno.test("fileMappings keeps the mappings of files, not the heap, stacks or anonymous memory", () => {
  const maps = [
    "55d0c0a00000-55d0c0c00000 r--p 00000000 fe:00 1442147                    /usr/bin/deno",
    "55d0c0c00000-55d0c1000000 r-xp 00200000 fe:00 1442147                    /usr/bin/deno",
    "55d0c2000000-55d0c2400000 rw-p 00000000 00:00 0                          [heap]",
    "7f1c94000000-7f1c94093000 rw-p 00000000 00:00 0 ",
    "7f1cb1f54000-7f1cb20aa000 r-xp 00026000 fe:00 339380                     /usr/lib/x86_64-linux-gnu/libc.so.6",
    "7f1cb3000000-7f1cb3001000 rw-s 00000000 00:01 0                          /dev/zero (deleted)",
    "7ffd5a1e0000-7ffd5a201000 rw-p 00000000 00:00 0                          [stack]",
    "7ffd5a3f2000-7ffd5a3f6000 r--p 00000000 00:00 0                          [vvar]",
    "",
  ].join("\n");
  assert.deepEqual(fileMappings(maps), [
    { start: 0x55d0c0a00000n, length: 0x200000n },
    { start: 0x55d0c0c00000n, length: 0x400000n },
    { start: 0x7f1cb1f54000n, length: 0x156000n },
  ]);
});

Deno.test({
  name: "releaseFilePages drops a process's file pages, and the process runs on",
  ignore: !kernelHasPageout(),
  async fn() {
    // The kernel keeps a page that another process maps too, and this test runs the same Deno:
    // the child runs from a copy of its own, as a deployed server is the only process running it.
    const dir = Deno.makeTempDirSync({ prefix: "vitrine-pages-" });
    try {
      const deno = `${dir}/deno`;
      Deno.copyFileSync(Deno.execPath(), deno);
      Deno.chmodSync(deno, 0o755);
      const script = `
        import { releaseFilePages } from "${STARTUP_PAGES}";
        const fileKb = () =>
          Number(/RssFile:\\s+(\\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))[1]);
        const before = fileKb();
        const accepted = releaseFilePages();
        const after = fileKb();
        // Code that runs after it still works: its pages come back on use.
        const answer = await (await import("node:crypto")).createHash("sha256").update("x")
          .digest("hex");
        console.log(JSON.stringify({ before, accepted, after, answer }));
      `;
      const output = await new Deno.Command(deno, {
        args: ["eval", script],
        stderr: "inherit",
      }).output();
      assert.ok(output.success);
      const { before, accepted, after, answer } = JSON.parse(
        new TextDecoder().decode(output.stdout),
      );
      assert.ok(accepted > 0, `the kernel took the advice for ${accepted} mappings`);
      assert.ok(after < before / 2, `file pages: ${before} kB before, ${after} kB after`);
      assert.equal(answer, "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
