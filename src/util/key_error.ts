/** An error named `KeyError`, the spec's name for a missing key or unknown name. */
export function keyError(message: string): Error {
  const error = new Error(message);
  error.name = "KeyError";
  return error;
}

/** True when `error` is a KeyError (from any plugin or module). */
export function isKeyError(error: unknown): boolean {
  return error instanceof Error && error.name === "KeyError";
}
