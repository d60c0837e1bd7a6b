/**
 * The one error type of `src/table/`: a bad request argument, mapped to HTTP by the views.
 *
 * @module
 */

/** A table request argument that cannot be honoured (`_size=abc`, `_sort=nope`, …). */
export class TableArgsError extends Error {
  /** HTTP status the view should answer with (400 unless stated). */
  readonly status: number;

  /** Creates the error; `message` is shown to the user as is. */
  constructor(message: string, status = 400) {
    super(message);
    this.name = "TableArgsError";
    this.status = status;
  }
}
