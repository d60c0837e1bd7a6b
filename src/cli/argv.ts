/**
 * Argument pre-processing commander cannot express: the two-value `-s NAME VALUE`,
 * `-d DB ACTION` and `-r DB RESOURCE ACTION` forms become single `a=b` style values.
 */

const MULTI_VALUE: Record<string, number> = {
  "-s": 2,
  "--setting": 2,
  "-d": 2,
  "--database": 2,
  "-r": 3,
  "--resource": 3,
  "--plugin-secret": 3,
};

/** Joins the values of multi-value options with NUL so commander sees one value each. */
export function joinMultiValueOptions(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arity = MULTI_VALUE[argv[i]];
    if (arity && i + arity < argv.length) {
      out.push(argv[i], argv.slice(i + 1, i + 1 + arity).join("\u0000"));
      i += arity;
    } else {
      out.push(argv[i]);
    }
  }
  return out;
}

/** Splits a value joined by joinMultiValueOptions. */
export function splitJoined(value: string): string[] {
  return value.split("\u0000");
}

/** Commander collector for repeatable options. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
