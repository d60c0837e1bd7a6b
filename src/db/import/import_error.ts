/**
 * `ImportError`: a file that cannot be imported as it is (bad encoding, a ragged row, a repeated
 * key, an unknown column). The message names the line and column where it can; to an HTTP
 * client it is a 400, on the command line the message alone.
 *
 * @module
 */

import { StatusError } from "../../util/errors.ts";

/** A file or option the importer cannot take; the message says where and why. */
export class ImportError extends StatusError {
  override name = "ImportError";
  /** The file's line the problem is on, when known. */
  readonly line: number | null;

  /** `line`, when given, is prefixed to the message as "line N: ". */
  constructor(message: string, options: { line?: number | null; cause?: unknown } = {}) {
    super(400, options.line ? `line ${options.line}: ${message}` : message, {
      cause: options.cause,
    });
    this.line = options.line ?? null;
  }
}
