/**
 * A one-line progress bar for long commands, drawn on standard error only when that is a
 * terminal (on a pipe or in a log it would be noise): rows, bytes (of the total when known),
 * rows per second and the time left.
 *
 * @module
 */

const REDRAW_MS = 100;
const WIDTH = 24;

/** Draws progress; `done()` clears the line. */
export class ProgressBar {
  #total: number | null;
  #started = performance.now();
  #drawn = 0;
  #enabled: boolean;
  #encoder = new TextEncoder();

  /** `total`: the byte count when known (a file), null for a stream. */
  constructor(total: number | null, enabled = Deno.stderr.isTerminal()) {
    this.#total = total;
    this.#enabled = enabled;
  }

  /** Redraws, at most every 100 ms. */
  update(rows: number, bytes: number): void {
    if (!this.#enabled) return;
    const now = performance.now();
    if (now - this.#drawn < REDRAW_MS) return;
    this.#drawn = now;
    this.#write(`\r${progressLine(rows, bytes, this.#total, (now - this.#started) / 1000)}\x1b[K`);
  }

  /** Clears the bar's line. */
  done(): void {
    if (this.#enabled && this.#drawn) this.#write("\r\x1b[K");
  }

  #write(text: string): void {
    Deno.stderr.writeSync(this.#encoder.encode(text));
  }
}

/** The text of the bar after `seconds`. */
export function progressLine(
  rows: number,
  bytes: number,
  total: number | null,
  seconds: number,
): string {
  const rate = seconds > 0 ? rows / seconds : 0;
  const parts = [
    `${rows.toLocaleString("en")} rows`,
    `${Math.round(rate).toLocaleString("en")} rows/s`,
  ];
  if (total) {
    const share = Math.min(1, bytes / total);
    const filled = Math.round(share * WIDTH);
    const left = share > 0 ? seconds / share - seconds : null;
    parts.unshift(
      `[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${Math.floor(share * 100)}%`,
    );
    parts.push(`${megabytes(bytes)} of ${megabytes(total)}`);
    if (left !== null) parts.push(`${formatSeconds(left)} left`);
  } else parts.push(megabytes(bytes));
  return parts.join("  ");
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function formatSeconds(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
