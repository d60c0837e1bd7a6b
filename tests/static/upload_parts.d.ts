// Types of static/upload-parts.js for its Deno test.
export function lastRecordEnd(
  text: string,
  dialect?: { quote?: string; delimiter?: string; lineBreak?: string },
): number;
export function countLineBreaks(text: string, lineBreak?: string): number;
export class FileParts {
  constructor(
    blob: Blob,
    options?: {
      encoding?: string;
      maxBytes?: number;
      quote?: string;
      delimiter?: string;
      lineBreak?: string;
    },
  );
  readonly bytesRead: number;
  readonly encoding: string;
  next(): Promise<{ text: string; body: Uint8Array } | null>;
}
