/** Exit codes: 0 success, 1 runtime failure, 2 bad command line, 130 interrupted (Ctrl-C). */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;
/** Stopped by SIGTERM (128 + 15, as a shell reports a process the signal ended). */
export const EXIT_TERMINATED = 143;

/**
 * The command line itself is wrong: an unknown option or mode, a bad value, a missing path. Exits 2.
 * The message says what was wrong; the hint says what would be right.
 */
export class UsageError extends Error {
  readonly hint: string | undefined;

  constructor(message: string, hint?: string) {
    super(message);
    this.name = "UsageError";
    this.hint = hint;
  }
}
