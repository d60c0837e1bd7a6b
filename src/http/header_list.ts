/**
 * `HeaderList`: a response's headers as `[name, value]` pairs while the pipeline still adds to
 * them, handed to the web `Response` in one go. Building a `Headers` object first and then asking
 * it `has`/`get`/`set` cost more than the rest of a small response (each call validates and
 * scans the list again).
 *
 * @module
 */

/** What code adding headers needs: `Headers` and {@link HeaderList} both have it. */
export interface HeaderAccess {
  has(name: string): boolean;
  get(name: string): string | null;
  set(name: string, value: string): void;
}

/** Header pairs with case-insensitive `has`/`get`/`set`; names keep the case they were set in. */
export class HeaderList implements HeaderAccess {
  /** The pairs, in order; repeated names (Set-Cookie) stay separate. */
  readonly pairs: [string, string][];

  constructor(pairs: [string, string][] = []) {
    this.pairs = pairs;
  }

  #index(name: string): number {
    const lower = name.toLowerCase();
    for (let i = 0; i < this.pairs.length; i++) {
      const key = this.pairs[i][0];
      if (key === lower || key.toLowerCase() === lower) return i;
    }
    return -1;
  }

  /** True when a header of this name is present. */
  has(name: string): boolean {
    return this.#index(name) !== -1;
  }

  /** The first value of this name, or null. */
  get(name: string): string | null {
    const i = this.#index(name);
    return i === -1 ? null : this.pairs[i][1];
  }

  /** Replaces every value of this name with `value`. */
  set(name: string, value: string): void {
    const i = this.#index(name);
    if (i === -1) {
      this.pairs.push([name, value]);
      return;
    }
    this.pairs[i] = [this.pairs[i][0], value];
    const lower = name.toLowerCase();
    for (let j = this.pairs.length - 1; j > i; j--) {
      if (this.pairs[j][0].toLowerCase() === lower) this.pairs.splice(j, 1);
    }
  }
}
