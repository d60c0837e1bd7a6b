/**
 * The file pages a server holds without needing them are given back: those starting touched once
 * it listens (`releaseFilePages`), those of the last requests once it is quiet
 * (`unmapCleanFilePages`). A process's resident pages mapped from files drop, and it goes on
 * running the code it needs.
 */
import assert from "node:assert/strict";
import { cleanFileMappings, fileMappings } from "../../src/util/file_pages.ts";

const FILE_PAGES = new URL("../../src/util/file_pages.ts", import.meta.url).href;

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
        import { releaseFilePages } from "${FILE_PAGES}";
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

Deno.test("cleanFileMappings keeps only read-only file mappings without pages the process wrote", () => {
  const smaps = [
    "55d0c0a00000-55d0c0c00000 r--p 00000000 fe:00 1442147                    /usr/bin/deno",
    "Rss:                 812 kB",
    "Anonymous:             0 kB",
    "VmFlags: rd mr mw me sd",
    "55d0c0c00000-55d0c1000000 r-xp 00200000 fe:00 1442147                    /usr/bin/deno",
    "Anonymous:             0 kB",
    // Relocated, then made read-only: its written pages would be lost.
    "55d0c1000000-55d0c1100000 r--p 00600000 fe:00 1442147                    /usr/bin/deno",
    "Anonymous:           132 kB",
    "55d0c1100000-55d0c1200000 rw-p 00700000 fe:00 1442147                    /usr/bin/deno",
    "Anonymous:             0 kB",
    "7f1c94000000-7f1c94093000 r--p 00000000 00:00 0 ",
    "Anonymous:             0 kB",
    "7f1cb1f54000-7f1cb20aa000 r-xp 00026000 fe:00 339380                     /usr/lib/x86_64-linux-gnu/libc.so.6",
    "Anonymous:             0 kB",
    "7ffd5a3f2000-7ffd5a3f6000 r--p 00000000 00:00 0                          [vvar]",
    "Anonymous:             0 kB",
    "",
  ].join("\n");
  assert.deepEqual(cleanFileMappings(smaps), [
    { start: 0x55d0c0a00000n, length: 0x200000n },
    { start: 0x55d0c0c00000n, length: 0x400000n },
    { start: 0x7f1cb1f54000n, length: 0x156000n },
  ]);
});

Deno.test({
  name: "unmapCleanFilePages drops a process's file pages, and the process runs on",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const script = `
      import { unmapCleanFilePages } from "${FILE_PAGES}";
      const fileKb = () =>
        Number(/RssFile:\\s+(\\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))[1]);
      const digest = async () => (await import("node:crypto")).createHash("sha256").update("x")
        .digest("hex");
      const first = await digest();
      const before = fileKb();
      const unmapped = await unmapCleanFilePages();
      const after = fileKb();
      // Code that ran before runs again: its pages are mapped back on use.
      const again = await digest();
      console.log(JSON.stringify({ before, unmapped, after, first, again }));
    `;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", script],
      stderr: "inherit",
    }).output();
    assert.ok(output.success);
    const { before, unmapped, after, first, again } = JSON.parse(
      new TextDecoder().decode(output.stdout),
    );
    assert.ok(unmapped > 0, `${unmapped} mappings unmapped`);
    assert.ok(after < before / 2, `file pages: ${before} kB before, ${after} kB after`);
    assert.equal(first, "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
    assert.equal(again, first);
  },
});
