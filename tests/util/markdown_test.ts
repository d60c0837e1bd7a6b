import assert from "node:assert/strict";
import { markdownToHtml } from "../../src/util/markdown.ts";

Deno.test("markdown: headings, lists, emphasis, code and links become HTML", () => {
  assert.equal(markdownToHtml("# Title"), "<h1>Title</h1>");
  assert.equal(
    markdownToHtml("- one\n- **two**"),
    "<ul><li>one</li><li><strong>two</strong></li></ul>",
  );
  assert.equal(markdownToHtml("1. a\n2. *b*"), "<ol><li>a</li><li><em>b</em></li></ol>");
  assert.equal(
    markdownToHtml("see [docs](https://example.com/a?b=1&c=2)\nnext line\n\nnew `x < y`"),
    '<p>see <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow">docs</a><br>next line</p>\n' +
      "<p>new <code>x &lt; y</code></p>",
  );
  assert.equal(markdownToHtml("```\n<b>\n```"), "<pre><code>&lt;b&gt;</code></pre>");
  assert.equal(markdownToHtml("> quoted"), "<blockquote><p>quoted</p></blockquote>");
});

Deno.test("markdown: no tag, attribute or script address from the text reaches the HTML", () => {
  const html = markdownToHtml(
    '<img src=x onerror=alert(1)> [x](javascript:alert(1)) [y](https://a.com/"onmouseover=alert(1))',
  );
  assert.doesNotMatch(html, /<img|href="javascript|"onmouseover/);
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.match(html, /\[x\]\(javascript:alert\(1\)\)/);
  assert.equal(markdownToHtml("`**not bold**`"), "<p><code>**not bold**</code></p>");
});
