/**
 * The text encoding of an imported file: named by the user (`--encoding`) or detected from its
 * first bytes (a UTF-8 or UTF-16 byte-order mark; valid UTF-8; otherwise Windows-1252, the
 * superset of Latin-1 that spreadsheets on Windows write). Whatever comes in, the parsers get
 * text: a file that claims UTF-8 is decoded strictly as it streams, so a stray Latin-1 byte stops
 * the import with a message rather than becoming a replacement character in the data.
 *
 * @module
 */

import { ImportError } from "./import_error.ts";

/** An encoding the importer reads. */
export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

const ALIASES: Record<string, TextEncodingName> = {
  "utf-8": "utf-8",
  "utf8": "utf-8",
  "utf-8-sig": "utf-8",
  "utf-16le": "utf-16le",
  "utf-16be": "utf-16be",
  "utf-16": "utf-16le",
  "latin-1": "windows-1252",
  "latin1": "windows-1252",
  "iso-8859-1": "windows-1252",
  "iso8859-1": "windows-1252",
  "cp1252": "windows-1252",
  "windows-1252": "windows-1252",
};

/** The encoding `name` stands for (case-insensitive); an error listing the choices otherwise. */
export function encodingNamed(name: string): TextEncodingName {
  const found = ALIASES[name.trim().toLowerCase()];
  if (!found) {
    throw new ImportError(
      `Unknown encoding "${name}": use utf-8, utf-16le, utf-16be or latin-1 (Windows-1252)`,
    );
  }
  return found;
}

/** The encoding the first bytes of a file suggest. */
export function detectEncoding(head: Uint8Array): TextEncodingName {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return "utf-8";
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  try {
    // stream: a character cut at the end of the sample is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return "utf-8";
  } catch {
    return "windows-1252";
  }
}

/**
 * The text of `source`, a chunk at a time, without a byte-order mark. UTF-8 is decoded strictly:
 * a byte that is not UTF-8 stops the import with a message naming where it is.
 */
export async function* textChunks(
  source: AsyncIterable<Uint8Array>,
  encoding: TextEncodingName,
): AsyncGenerator<string> {
  // TextDecoder drops a leading byte-order mark of the encoding it decodes.
  const decoder = new TextDecoder(encoding, { fatal: encoding === "utf-8" });
  let offset = 0;
  for await (const chunk of source) {
    const text = decode(decoder, chunk, offset, false);
    offset += chunk.length;
    if (text) yield text;
  }
  const rest = decode(decoder, new Uint8Array(0), offset, true);
  if (rest) yield rest;
}

function decode(decoder: TextDecoder, chunk: Uint8Array, offset: number, end: boolean): string {
  try {
    return decoder.decode(chunk, { stream: !end });
  } catch {
    throw new ImportError(
      `The file is not valid UTF-8 (in the bytes from ${offset}); if it was saved as ` +
        "Latin-1 or Windows-1252, say so with --encoding latin-1",
    );
  }
}
