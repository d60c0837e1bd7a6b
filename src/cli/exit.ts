/** Thrown by a command to end the CLI with an exit code (and an optional message). */
export class CliExit extends Error {
  constructor(readonly code: number, message = "") {
    super(message);
    this.name = "CliExit";
  }
}
