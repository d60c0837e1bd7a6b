/**
 * Where a JSON text stops being valid, for error messages that name a line and column.
 * `JSON.parse` reports a position for most mistakes but not for an unexpected token
 * (`{"a": tru}`), so this small validating scanner finds it.
 */

/** A 1-based line and column in a text. */
export interface TextPosition {
  line: number;
  column: number;
}

/** The offset of the first character that makes `text` invalid JSON, or null if it is valid. */
export function jsonErrorOffset(text: string): number | null {
  const scanner = new Scanner(text);
  try {
    scanner.skipSpace();
    scanner.value();
    scanner.skipSpace();
    if (scanner.at < text.length) throw scanner.fail();
    return null;
  } catch (error) {
    if (error instanceof ScanError) return error.offset;
    throw error;
  }
}

/** Line and column (both 1-based) of `offset` in `text`. */
export function positionAt(text: string, offset: number): TextPosition {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split(/\r\n|\r|\n/);
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

class ScanError {
  constructor(readonly offset: number) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

class Scanner {
  at = 0;
  constructor(readonly text: string) {}

  fail(offset: number = this.at): ScanError {
    return new ScanError(Math.min(offset, this.text.length));
  }

  skipSpace(): void {
    while (/[ \t\n\r]/.test(this.text[this.at] ?? "")) this.at++;
  }

  expect(char: string): void {
    if (this.text[this.at] !== char) throw this.fail();
    this.at++;
  }

  value(): void {
    const char = this.text[this.at];
    if (char === "{") return this.object();
    if (char === "[") return this.array();
    if (char === '"') return this.string();
    for (const word of ["true", "false", "null"]) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return;
      }
    }
    NUMBER.lastIndex = this.at;
    const number = NUMBER.exec(this.text);
    if (!number) throw this.fail();
    this.at += number[0].length;
  }

  object(): void {
    this.expect("{");
    this.skipSpace();
    if (this.text[this.at] === "}") {
      this.at++;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] !== '"') throw this.fail();
      this.string();
      this.skipSpace();
      this.expect(":");
      this.skipSpace();
      this.value();
      this.skipSpace();
      if (this.text[this.at] === "}") {
        this.at++;
        return;
      }
      this.expect(",");
    }
  }

  array(): void {
    this.expect("[");
    this.skipSpace();
    if (this.text[this.at] === "]") {
      this.at++;
      return;
    }
    for (;;) {
      this.skipSpace();
      this.value();
      this.skipSpace();
      if (this.text[this.at] === "]") {
        this.at++;
        return;
      }
      this.expect(",");
    }
  }

  string(): void {
    this.expect('"');
    for (;;) {
      const char = this.text[this.at];
      if (char === undefined || char.charCodeAt(0) < 0x20) throw this.fail();
      if (char === '"') {
        this.at++;
        return;
      }
      if (char === "\\") {
        ESCAPE.lastIndex = this.at;
        const escape = ESCAPE.exec(this.text);
        if (!escape) throw this.fail();
        this.at += escape[0].length;
      } else {
        this.at++;
      }
    }
  }
}
