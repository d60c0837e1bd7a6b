/**
 * The one error type of `src/table/`: a bad request argument. Like every error with a status it
 * extends `StatusError`, so `src/app/error_response.ts` answers it without the views' help.
 *
 * @module
 */

import { StatusError } from "../util/errors.ts";

/** A table request argument that cannot be honoured (`_size=abc`, `_sort=nope`, …). */
export class TableArgsError extends StatusError {
  override name = "TableArgsError";

  /**
   * Creates the error; `message` is shown to the user as is; `status` is 400 unless stated;
   * `hint` says on the HTML page how to put the request right (the JSON body keeps the message
   * alone, as the reference words it).
   */
  constructor(message: string, status = 400, hint: string | null = null) {
    super(status, message, hint ? { hint: { text: hint } } : {});
  }
}
