import { describeValue } from "./describe-value.js";

const marker = "ragsynth.error";

/**
 * Marks `error` as an instance of the class named by `marker` (`ragsynth.error.LLMError`), with a
 * `Symbol.for` key, so the check works across duplicated copies of the package. Each class marks its own
 * instances: a subclass's instance carries its own marker and its parents', never a sibling's.
 */
export function markError(error: object, marker: string): void {
  Object.defineProperty(error, Symbol.for(marker), { value: true });
}

/** True when `error` carries the marker set by {@link markError}. */
export function hasErrorMarker(error: unknown, marker: string): boolean {
  return typeof error === "object" && error !== null && Symbol.for(marker) in error;
}

/** The codes an `LLMError` can carry: a model or embedding server call failed. */
export const LLM_ERROR_CODES = [
  "missing_api_key",
  "llm_auth",
  "llm_rate_limit",
  "llm_context_length",
  "llm_bad_request",
  "llm_unreachable",
  "llm_server_error",
  "llm_bad_response",
  "llm_timeout",
  "llm_stream_interrupted",
  "retries_exhausted",
] as const;

/** A code an `LLMError` can carry. */
export type LLMErrorCode = (typeof LLM_ERROR_CODES)[number];

/**
 * Every error code ragsynth throws. Codes are stable; messages may improve.
 */
export type RagsynthErrorCode =
  | "invalid_argument"
  | "missing_template_variable"
  | "context_overflow"
  | "unknown_mode"
  | "tree_not_shrinking"
  | "no_object_generated"
  | LLMErrorCode
  | "optimizer_zero_sentences"
  | "rerank_parse"
  | "document_read"
  | "index_load"
  | "index_save"
  | "batch_input"
  | "missing_peer_dependency"
  | "batch_job_failed"
  | "redis_unavailable"
  | "not_implemented";

/**
 * Base class of every error ragsynth throws. Check with `RagsynthError.isInstance(error)`, which
 * works across duplicated copies of the package, unlike `instanceof`.
 */
export class RagsynthError extends Error {
  /** Machine-readable code; see {@link RagsynthErrorCode}. */
  readonly code: RagsynthErrorCode;
  /**
   * Set when the error ended a synthesis: the calls and tokens spent before it (failed calls included).
   */
  usage?: { llmCalls: number; promptTokens: number; completionTokens: number; retries: number };
  /** Set when the error ended a synthesis: how many model calls had succeeded before it. */
  callsSucceeded?: number;

  constructor(fields: { code: RagsynthErrorCode; message: string; cause?: unknown }) {
    // Checked here, not by check-error-fields.ts (whose InvalidArgumentError extends this class): a JavaScript
    // caller without fields gets an error of this class with code invalid_argument, saying what was expected.
    if (
      typeof fields !== "object" ||
      fields === null ||
      typeof fields.code !== "string" ||
      typeof fields.message !== "string"
    ) {
      throw new RagsynthError({
        code: "invalid_argument",
        message: `Expected RagsynthError fields to be an object with code (a string) and message (a string), got ${describeValue(fields)}. Construct it as new RagsynthError({ code, message }).`,
      });
    }
    const { code, message, cause } = fields;
    super(message, cause === undefined ? undefined : { cause });
    this.name = "RagsynthError";
    this.code = code;
    markError(this, marker);
  }

  /**
   * True when `error` is a ragsynth error (of any class), optionally with the given code. Each subclass has
   * its own `isInstance` that is true only for that class and its subclasses: `LLMError.isInstance(e)`.
   */
  static isInstance(error: unknown, code?: RagsynthErrorCode): error is RagsynthError {
    if (!hasErrorMarker(error, marker)) return false;
    return code === undefined || (error as RagsynthError).code === code;
  }
}
