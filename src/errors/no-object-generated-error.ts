import { checkErrorFields } from "./check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "./ragsynth-error.js";

const marker = "ragsynth.error.NoObjectGeneratedError";

/**
 * The model's answer was not JSON, or did not match the schema. Carries the raw `text` and the
 * validation `issues`; the zod error (or JSON syntax error) is the `cause`.
 */
export class NoObjectGeneratedError extends RagsynthError {
  readonly text: string;
  readonly issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>;

  constructor(fields: {
    text: string;
    issues?: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>;
    cause?: unknown;
    schemaName?: string;
  }) {
    const {
      text,
      issues = [],
      cause,
      schemaName,
    } = checkErrorFields(fields, "NoObjectGeneratedError", { text: "string" });
    const preview = text.length > 200 ? `${text.slice(0, 197)}...` : text;
    const what =
      issues.length > 0
        ? `did not match ${schemaName ?? "the schema"}: ${issues
            .slice(0, 3)
            .map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`)
            .join("; ")}`
        : "was not valid JSON";
    super({
      code: "no_object_generated",
      message: `The model's answer ${what}. Answer was: ${JSON.stringify(preview)}. Use a model with JSON-schema support, simplify the schema, or raise numOutput if the answer was cut off.`,
      cause,
    });
    this.name = "NoObjectGeneratedError";
    markError(this, marker);
    this.text = text;
    this.issues = issues;
  }

  /** True when `error` is a {@link NoObjectGeneratedError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is NoObjectGeneratedError {
    return hasErrorMarker(error, marker);
  }
}
