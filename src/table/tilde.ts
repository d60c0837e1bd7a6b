/**
 * Tilde encoding (SPEC "Naming rules") for keyset tokens. A local copy so `src/table/` stays
 * usable before `src/util/tilde.ts` lands; both follow the same rule.
 *
 * @module
 */

const SAFE = /[A-Za-z0-9_-]/;

/** Every byte outside `A-Za-z0-9_-` becomes `~XX` (uppercase hex); a space becomes `+`. */
export function tildeEncode(text: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    const char = String.fromCharCode(byte);
    if (byte < 128 && SAFE.test(char)) out += char;
    else if (byte === 0x20) out += "+";
    else out += "~" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** Reverses {@link tildeEncode}; a literal `%` is kept as is, `+` is a space. */
export function tildeDecode(text: string): string {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const hex = text.slice(i + 1, i + 3);
    if (char === "~" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (char === "+") {
      bytes.push(0x20);
    } else {
      bytes.push(...encoder.encode(char));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
