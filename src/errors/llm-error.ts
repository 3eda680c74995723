import { checkErrorFields } from "./check-error-fields.js";
import {
  hasErrorMarker,
  LLM_ERROR_CODES,
  type LLMErrorCode,
  markError,
  RagsynthError,
} from "./ragsynth-error.js";

const marker = "ragsynth.error.LLMError";

/**
 * A model or embedding server call failed. `code` says why; the fields say where and how often.
 * Messages and fields never contain the API key: server-echoed text is scrubbed and URLs lose
 * their credentials and query string before they reach this error.
 *
 * `retries_exhausted` wraps the last failure (`lastError`, also the `cause`) after every attempt failed.
 */
export class LLMError extends RagsynthError {
  declare readonly code: LLMErrorCode;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** The endpoint called (`http://localhost:11434/v1/chat/completions`), without credentials or query. */
  readonly url: string | undefined;
  /** Attempts made before this error was thrown (1 when nothing was retried). */
  readonly attempts: number;
  /** The delay the server asked for (`Retry-After`, `retry-after-ms`), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** True when another attempt may succeed (rate limit, 5xx, dropped connection before any text). */
  readonly retryable: boolean;
  /** For `retries_exhausted`: the failure of the last attempt. */
  readonly lastError: LLMError | undefined;

  constructor(fields: {
    code: LLMErrorCode;
    message: string;
    status?: number | undefined;
    url?: string | undefined;
    attempts?: number;
    retryAfterMs?: number | undefined;
    retryable?: boolean;
    lastError?: LLMError | undefined;
    cause?: unknown;
  }) {
    const {
      code,
      message,
      status,
      url,
      attempts = 1,
      retryAfterMs,
      retryable = false,
      lastError,
      cause,
    } = checkErrorFields(fields, "LLMError", { code: LLM_ERROR_CODES, message: "string" });
    super({ code, message, cause: cause ?? lastError });
    this.name = "LLMError";
    markError(this, marker);
    this.status = status;
    this.url = url;
    this.attempts = attempts;
    this.retryAfterMs = retryAfterMs;
    this.retryable = retryable;
    this.lastError = lastError;
  }

  /** The same error with a new attempt count (the retry loop knows it; the mapper does not). */
  withAttempts(attempts: number): LLMError {
    const copy = new LLMError({
      code: this.code,
      message: this.message,
      status: this.status,
      url: this.url,
      attempts,
      retryAfterMs: this.retryAfterMs,
      retryable: this.retryable,
      lastError: this.lastError,
      cause: this.cause,
    });
    if (this.stack !== undefined) copy.stack = this.stack;
    return copy;
  }

  /** A JSON-safe view for traces and logs: code, message and fields, never the cause chain. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      url: this.url,
      attempts: this.attempts,
      retryAfterMs: this.retryAfterMs,
      retryable: this.retryable,
      ...(this.lastError ? { lastError: this.lastError.toJSON() } : {}),
    };
  }

  /**
   * True when `error` is an {@link LLMError} (also across duplicated copies of the package), optionally with
   * the given code: `LLMError.isInstance(error, "llm_rate_limit")`.
   */
  static override isInstance(error: unknown, code?: LLMErrorCode): error is LLMError {
    return hasErrorMarker(error, marker) && (code === undefined || (error as LLMError).code === code);
  }
}
