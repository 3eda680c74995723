import { describeValue } from "./describe-value.js";
import { hasErrorMarker, markError, RagsynthError } from "./ragsynth-error.js";
import { withoutCredentials } from "./scrub-secrets.js";

const marker = "ragsynth.error.InvalidArgumentError";

/**
 * An argument had the wrong type or value. The message says what was expected, what arrived and,
 * where it helps, how to fix it: ``Expected `chunkOverlap` to be at most `chunkSize` (512), got `600` (number).``
 */
export class InvalidArgumentError extends RagsynthError {
  /** The parameter's name, as the user wrote it (`chunkOverlapRatio`, `nodes[3].text`). */
  readonly parameter: string;
  /** The value that arrived; a scrubbed JSON copy when it held a credential (an options object with its `apiKey`). */
  readonly value: unknown;

  constructor(fields: {
    parameter: string;
    value: unknown;
    /** What was expected, completing "Expected `parameter` to …". */
    expected: string;
    /** How to fix it, appended as its own sentence. */
    hint?: string;
    cause?: unknown;
  }) {
    // Its own fields checked here (the shared check, check-error-fields.ts, throws this class): a caller without
    // them gets this class, saying so.
    const isObject = typeof fields === "object" && fields !== null && !Array.isArray(fields);
    const wrong = !isObject
      ? undefined
      : typeof fields.parameter !== "string"
        ? "parameter"
        : typeof fields.expected !== "string"
          ? "expected"
          : null;
    if (wrong !== null) {
      throw new InvalidArgumentError({
        parameter:
          wrong === undefined ? "InvalidArgumentError fields" : `InvalidArgumentError fields.${wrong}`,
        value: wrong === undefined ? fields : fields[wrong],
        expected:
          wrong === undefined
            ? "be an object with parameter (a string), value (anything) and expected (a string)"
            : "be a string",
        hint: "Construct it as new InvalidArgumentError({ parameter, value, expected }).",
      });
    }
    const { parameter, value, expected, hint, cause } = fields;
    const message = `Expected \`${parameter}\` to ${expected}, got ${describeValue(value)}.${hint ? ` ${hint}` : ""}`;
    super({ code: "invalid_argument", message, cause });
    this.name = "InvalidArgumentError";
    markError(this, marker);
    this.parameter = parameter;
    this.value = withoutCredentials(value);
  }

  /** True when `error` is an {@link InvalidArgumentError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is InvalidArgumentError {
    return hasErrorMarker(error, marker);
  }
}
