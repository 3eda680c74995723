import { checkErrorFields } from "../errors/check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "../errors/ragsynth-error.js";

const batchInputMarker = "ragsynth.error.BatchInputError";

/** A batch input file (JSONL of items) could not be read: says which line, what was expected and how to fix it. */
export class BatchInputError extends RagsynthError {
  /** The 1-based line of the input, when one line is at fault. */
  readonly line: number | undefined;

  constructor(fields: { message: string; line?: number; cause?: unknown }) {
    const { message, line, cause } = checkErrorFields(fields, "BatchInputError", { message: "string" });
    super({ code: "batch_input", message: line === undefined ? message : `Line ${line}: ${message}`, cause });
    this.name = "BatchInputError";
    markError(this, batchInputMarker);
    this.line = line;
  }

  /** True when `error` is a {@link BatchInputError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is BatchInputError {
    return hasErrorMarker(error, batchInputMarker);
  }
}
