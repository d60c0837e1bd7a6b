// Cutting a CSV or TSV file into parts for `POST /<db>/<table>/-/upload` (static/upload.js): each
// part ends at a line break outside quotes, so no row is split between two parts. Finding that
// line break does not parse the fields: it jumps from quote to quote (indexOf) and only asks, of
// each quote, whether it opens a quoted field (it stands at the start of a field) and, inside one,
// whether it is doubled. The server reads each part with the importer's own parser. No DOM here:
// the Deno tests import this module too (tests/static/upload_parts_test.ts).

/**
 * The index just after the last line break of `text` that ends a record (is outside quotes), or
 * 0 when there is none. `text` starts at the start of a record. A quote inside an unquoted field
 * (`5" screen`) is an ordinary character, as the server's parser reads it.
 */
export function lastRecordEnd(text, { quote = '"', delimiter = ",", lineBreak = "\n" } = {}) {
  const n = text.length;
  let last = -1;
  let i = 0;
  while (i < n) {
    const open = text.indexOf(quote, i);
    const unquotedEnd = open === -1 ? n : open;
    // Every line break before the next quote is outside quotes: the last one counts.
    const lineEnd = unquotedEnd > 0 ? text.lastIndexOf(lineBreak, unquotedEnd - 1) : -1;
    if (lineEnd >= i) last = lineEnd;
    if (open === -1) break;
    const before = open === 0 ? "\n" : text[open - 1];
    if (before !== delimiter && before !== "\n" && before !== "\r") {
      i = open + 1;
      continue;
    }
    // A quoted field: it ends at a quote that is not doubled.
    let from = open + 1;
    while (true) {
      const close = text.indexOf(quote, from);
      // Open to the end of the text (or a quote at its very end, perhaps half of a doubled one):
      // the rest belongs to the next part.
      if (close === -1 || close + 1 === n) return last + 1;
      if (text[close + 1] === quote) {
        from = close + 2;
        continue;
      }
      i = close + 1;
      break;
    }
  }
  return last + 1;
}

/** How many `lineBreak`s `text` holds (the lines a part spans, for its error message). */
export function countLineBreaks(text, lineBreak = "\n") {
  let count = 0;
  for (let at = text.indexOf(lineBreak); at !== -1; at = text.indexOf(lineBreak, at + 1)) count++;
  return count;
}

/** The most bytes of the file read for one part (the row it ends in may add to it). */
const MAX_SLICE = 4 * 1024 * 1024;

/** Whether the first non-ASCII byte of `bytes` starts a UTF-8 character (or there is none). */
function startsUtf8(bytes) {
  const first = bytes.findIndex((byte) => byte >= 0x80);
  if (first < 0) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(first, first + 4), {
      stream: true,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * The parts of a Blob (a File, or pasted text as a Blob), read a slice at a time and decoded
 * (UTF-8 strictly, or Windows-1252), each at most `maxBytes` bytes once encoded as UTF-8 (0: no
 * limit) and ending at a record's end (the last part may end without a line break).
 */
export class FileParts {
  #blob;
  #options;
  #maxBytes;
  #sliceBytes;
  #decoder;
  #offset = 0;
  #carry = "";
  // Every byte read so far was ASCII, which UTF-8 and Windows-1252 read alike.
  #asciiSoFar;
  #encoder = new TextEncoder();

  constructor(blob, { encoding = "utf-8", maxBytes = 0, ...dialect } = {}) {
    this.#blob = blob;
    this.#options = dialect;
    this.#maxBytes = maxBytes;
    // Three quarters of the limit leaves room for the row a slice ends in (its start waits for
    // the next part) and for Windows-1252 text growing when encoded as UTF-8. A few MB at most,
    // however high the limit: each part holds the database's writer while it is inserted.
    this.#sliceBytes = Math.min(
      maxBytes ? Math.max(1024, Math.floor(maxBytes * 0.75)) : MAX_SLICE,
      MAX_SLICE,
    );
    this.#decoder = new TextDecoder(encoding, { fatal: encoding === "utf-8" });
    this.#asciiSoFar = encoding === "utf-8";
  }

  /**
   * The encoding the file is read with: the preview's, or `windows-1252` once a file read as
   * UTF-8 (its first 64 KB were plain ASCII) turned out to be Windows-1252 further on.
   */
  get encoding() {
    return this.#asciiSoFar || this.#decoder.encoding === "utf-8" ? "utf-8" : "windows-1252";
  }

  /** Bytes of the file read so far. */
  get bytesRead() {
    return this.#offset;
  }

  /** The next part as `{text, body}` (`body` its UTF-8 bytes), or null after the last. */
  async next() {
    while (true) {
      const atEnd = this.#offset >= this.#blob.size;
      let text;
      if (atEnd) {
        text = this.#carry + this.#decode(new Uint8Array(0), false);
        this.#carry = "";
        if (!text) return null;
      } else {
        const slice = this.#blob.slice(this.#offset, this.#offset + this.#sliceBytes);
        this.#offset += slice.size;
        text = this.#carry + this.#decode(new Uint8Array(await slice.arrayBuffer()), true);
        const end = lastRecordEnd(text, this.#options);
        if (!end) {
          this.#carry = text;
          this.#checkRowSize(text);
          continue;
        }
        this.#carry = text.slice(end);
        text = text.slice(0, end);
      }
      return this.#fitted(text);
    }
  }

  #decode(bytes, stream) {
    try {
      const text = this.#decoder.decode(bytes, { stream });
      if (this.#asciiSoFar && bytes.some((byte) => byte >= 0x80)) this.#asciiSoFar = false;
      return text;
    } catch {
      // A spreadsheet's export whose first accent comes after the 64 KB the preview read: its
      // first non-ASCII byte starts no UTF-8 character, so the file is Windows-1252 (as the
      // preview decides from its first bytes), and so is everything read so far (ASCII).
      if (this.#asciiSoFar && !startsUtf8(bytes)) {
        this.#asciiSoFar = false;
        this.#decoder = new TextDecoder("windows-1252");
        return this.#decoder.decode(bytes, { stream });
      }
      throw new Error(
        `The file is not UTF-8 text (in the bytes up to ${this.#offset.toLocaleString("en")}); ` +
          "save it as UTF-8 and upload it again",
      );
    }
  }

  /** The part, or its first rows when it is larger than the limit (the others wait). */
  #fitted(text) {
    let body = this.#encoder.encode(text);
    if (!this.#maxBytes || body.length <= this.#maxBytes) return { text, body };
    // A UTF-8 character is at least a byte: the part ends within the limit's count of characters.
    let cut = Math.min(text.length, this.#maxBytes);
    while (true) {
      const end = lastRecordEnd(text.slice(0, cut), this.#options);
      if (!end) this.#checkRowSize(text, true);
      body = this.#encoder.encode(text.slice(0, end));
      if (body.length <= this.#maxBytes) {
        this.#carry = text.slice(end) + this.#carry;
        return { text: text.slice(0, end), body };
      }
      cut = end - 1;
    }
  }

  #checkRowSize(text, tooLong = false) {
    if (tooLong || (this.#maxBytes && this.#encoder.encode(text).length > this.#maxBytes)) {
      throw new Error(
        `A row is longer than the ${this.#maxBytes.toLocaleString("en")} bytes a part may have ` +
          "(max_post_body_bytes)",
      );
    }
  }
}
