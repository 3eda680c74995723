import type { APIError } from "openai";
import { LLMError } from "../errors/llm-error.js";
import { llmErrorCodeForStatus } from "../errors/llm-error-code-for-status.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { scrubSecrets } from "../errors/scrub-secrets.js";
import { parseRetryAfter } from "../util/retry.js";
import { loadedOpenAISdk } from "./load-openai-sdk.js";
import { OLLAMA_DEFAULT_PORT, ollamaBaseURL } from "./parse-model-spec.js";

/** Where a failing call went and what must never show up in the resulting error. */
export interface ErrorContext {
  /** The endpoint, already passed through {@link redactUrl}. */
  url: string;
  /** API keys and other secrets to scrub from any text that reaches the error. */
  secrets: readonly string[];
  /** For `Retry-After` dates. */
  now?: number;
  /** Set for streams: how many text deltas were already yielded when the error happened. */
  deltasYielded?: number;
}

type SdkErrorName = "APIError" | "APIConnectionError" | "APIConnectionTimeoutError" | "APIUserAbortError";

/** `error instanceof openai[name]`; false while the SDK is not loaded (then no error can come from it). */
function isInstance<Name extends SdkErrorName>(
  error: unknown,
  name: Name,
): error is InstanceType<NonNullable<ReturnType<typeof loadedOpenAISdk>>[Name]> {
  const sdk = loadedOpenAISdk();
  return sdk !== undefined && error instanceof sdk[name];
}

const connectionCodes =
  /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|UND_ERR_SOCKET|UND_ERR_CLOSED/;
const droppedMessages = /terminated|socket hang up|other side closed|premature close/i;

/** The URL without user info, query or fragment, which is where keys hide (`?api-key=`, `user:key@`). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    parsed.hash = "";
    return parsed.toString();
  } catch {
    return "(invalid URL)";
  }
}

/** True for the URL of an Ollama server: port 11434, a host named ollama, or the server `OLLAMA_HOST` names. */
export function looksLikeOllama(
  url: string,
  ollamaHost: string | undefined = process.env.OLLAMA_HOST,
): boolean {
  try {
    const parsed = new URL(url);
    if (parsed.port === OLLAMA_DEFAULT_PORT || /ollama/i.test(parsed.hostname)) return true;
    return Boolean(ollamaHost?.trim()) && new URL(ollamaBaseURL(ollamaHost)).host === parsed.host;
  } catch {
    return false;
  }
}

/** How to fix an unreachable server. */
export function unreachableHint(url: string): string {
  return looksLikeOllama(url)
    ? "Is Ollama running? Start it with `ollama serve`."
    : "Check that the server is running and that the base URL points at it.";
}

function causeText(error: unknown, depth = 0): string {
  if (typeof error !== "object" || error === null || depth > 4) return "";
  const record = error as { code?: unknown; message?: unknown; cause?: unknown };
  const text = `${String(record.code ?? "")} ${String(record.message ?? "")} ${causeText(record.cause, depth + 1)}`;
  return text.replace(/\s+/g, " ").trim();
}

function serverMessage(error: APIError, secrets: readonly string[]): string {
  const body = error.error as { message?: unknown } | undefined;
  const raw = typeof body?.message === "string" ? body.message : error.message;
  const text = scrubSecrets(raw, secrets).trim().replace(/\.+$/, "");
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/** The cause to attach: the original error unless a secret appears anywhere in it. */
function safeCause(error: unknown, secrets: readonly string[]): unknown {
  if (!(error instanceof Error)) return undefined;
  let text = causeText(error);
  if (isInstance(error, "APIError")) text += JSON.stringify(error.error ?? null);
  if (scrubSecrets(text, secrets) === text) return error;
  const copy = new Error(scrubSecrets(error.message, secrets));
  copy.name = error.name;
  return copy;
}

function fromStatus(error: APIError & { status: number }, context: ErrorContext): LLMError {
  const { url, secrets } = context;
  const status = error.status;
  const said = serverMessage(error, secrets);
  const base = { status, url, cause: safeCause(error, secrets) };
  const shouldRetry = error.headers?.get("x-should-retry");
  const override = shouldRetry === "true" ? true : shouldRetry === "false" ? false : undefined;
  const code = llmErrorCodeForStatus(status);
  if (code === "llm_auth") {
    const message = `${url} rejected the credentials (${status}): ${said}. Check OPENAI_API_KEY or the apiKey option.`;
    return new LLMError({ ...base, code: "llm_auth", message });
  }
  if (code === "llm_rate_limit") {
    const retryAfterMs = parseRetryAfter(error.headers, context.now);
    const quota = error.code === "insufficient_quota";
    const wait = retryAfterMs === undefined ? "" : ` The server asked to wait ${Math.ceil(retryAfterMs)} ms.`;
    const hint = quota ? " Your quota is used up: check your plan and billing." : wait;
    return new LLMError({
      ...base,
      code: "llm_rate_limit",
      message: `${url} is rate limiting requests (429): ${said}.${hint}`,
      retryAfterMs,
      retryable: override ?? !quota,
    });
  }
  if (code === "llm_timeout" || code === "llm_server_error") {
    return new LLMError({
      ...base,
      code,
      message: `${url} failed with ${status}: ${said}.`,
      retryAfterMs: parseRetryAfter(error.headers, context.now),
      retryable: override ?? true,
    });
  }
  const contextLength =
    error.code === "context_length_exceeded" ||
    /context[_ ]length|context window|maximum context|too many tokens|prompt is too long/i.test(said);
  if (contextLength) {
    const message = `The prompt is longer than the model's context window (${status}): ${said}. Pass the model's real contextWindow so the budget packs less.`;
    return new LLMError({ ...base, code: "llm_context_length", message });
  }
  const notFound =
    status === 404 && looksLikeOllama(url) ? " Pull the model first: `ollama pull <model>`." : "";
  const message = `${url} rejected the request (${status}): ${said}.${notFound}`;
  return new LLMError({ ...base, code: "llm_bad_request", message, retryable: override ?? false });
}

/**
 * Turns what the openai client (or fetch) threw into a typed {@link LLMError}, scrubbing secrets.
 * Aborts and unknown errors come back unchanged.
 */
export function toLLMError(error: unknown, context: ErrorContext): unknown {
  if (RagsynthError.isInstance(error) || isInstance(error, "APIUserAbortError")) return error;
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return error;
  const { url, secrets, deltasYielded } = context;
  const cause = safeCause(error, secrets);
  if (isInstance(error, "APIError") && typeof error.status === "number") {
    return fromStatus(error as APIError & { status: number }, context);
  }
  if (isInstance(error, "APIConnectionTimeoutError")) {
    const message = `${url} did not answer in time. Raise timeoutMs or check the server's load.`;
    return new LLMError({ code: "llm_timeout", message, url, retryable: true, cause });
  }
  const text = causeText(error);
  if (deltasYielded !== undefined && deltasYielded > 0) {
    const message = `The answer stream from ${url} broke after ${deltasYielded} text deltas (${scrubSecrets(text.trim(), secrets) || "no reason given"}). Not retried, as that would repeat text already delivered.`;
    return new LLMError({ code: "llm_stream_interrupted", message, url, cause });
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/.test(text)) {
    const reason = /ECONNREFUSED/.test(text) ? "connection refused" : "host not reachable";
    const message = `Could not connect to ${url} (${reason}). ${unreachableHint(url)}`;
    return new LLMError({ code: "llm_unreachable", message, url, retryable: true, cause });
  }
  if (isInstance(error, "APIConnectionError") || connectionCodes.test(text) || droppedMessages.test(text)) {
    if (deltasYielded === 0) {
      const message = `The answer stream from ${url} closed before any text arrived.`;
      return new LLMError({ code: "llm_stream_interrupted", message, url, retryable: true, cause });
    }
    const message = `The connection to ${url} failed before the answer was complete. ${unreachableHint(url)}`;
    return new LLMError({ code: "llm_unreachable", message, url, retryable: true, cause });
  }
  if (error instanceof SyntaxError) {
    const message = `${url} sent a response that is not valid JSON. Is baseURL an OpenAI-compatible /v1 endpoint?`;
    return new LLMError({ code: "llm_bad_response", message, url, cause });
  }
  if (isInstance(error, "APIError")) {
    const message = `${url} reported an error in the stream: ${serverMessage(error, secrets)}.`;
    return new LLMError({ code: "llm_server_error", message, url, cause });
  }
  return error;
}
