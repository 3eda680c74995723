import { LLMError } from "../errors/llm-error.js";
import { scrubSecrets } from "../errors/scrub-secrets.js";
import type { LLMUsage } from "../usage/usage.js";

/** The most tokens one call can plausibly report; anything above is a server bug, not usage. */
const MAX_PLAUSIBLE_TOKENS = 1_000_000_000;

/** What the error needs to describe a reply: where it came from, and what must never be printed. */
export interface ReplyContext {
  url: string;
  secrets: readonly string[];
}

function describeBody(body: unknown, secrets: readonly string[]): string {
  const text = typeof body === "string" ? body : JSON.stringify(body ?? null);
  const flat = scrubSecrets(text ?? "", secrets)
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

/** A 200 reply that is not an OpenAI completion: typed, and not retried (the same server would answer the same). */
export function badResponse(context: ReplyContext, detail: string): LLMError {
  return new LLMError({
    code: "llm_bad_response",
    url: context.url,
    retryable: false,
    message: `${context.url} ${detail}. Is baseURL an OpenAI-compatible /v1 endpoint?`,
  });
}

/**
 * Throws `llm_bad_response` unless a non-streamed reply is a completion: an object with a non-empty `choices`
 * array. HTML pages, JSON of another shape and text all land here, with their content type and a snippet.
 */
export function checkCompletionBody(body: unknown, contentType: string | null, context: ReplyContext): void {
  const choices = (body as { choices?: unknown } | null)?.choices;
  if (typeof body === "object" && body !== null && Array.isArray(choices) && choices.length > 0) return;
  const got = `${contentType ?? "no content type"}: ${describeBody(body, context.secrets)}`;
  const what =
    typeof body === "object" && body !== null
      ? Array.isArray(choices)
        ? "answered with no choices"
        : "answered JSON without choices"
      : "answered with something that is not a completion";
  throw badResponse(context, `${what} (got ${got})`);
}

/** Throws `llm_bad_response` when a streamed reply is not an SSE stream (an HTML page, a JSON body). */
export function checkStreamContentType(contentType: string | null, context: ReplyContext): void {
  if (contentType === null || /event-stream/i.test(contentType)) return;
  throw badResponse(context, `answered a streaming request with ${contentType}, not an SSE stream`);
}

/** Throws `llm_bad_response` for an SSE event that is not a completion chunk (no `choices` array). */
export function checkStreamChunk(chunk: unknown, context: ReplyContext): void {
  if (Array.isArray((chunk as { choices?: unknown } | null)?.choices)) return;
  throw badResponse(
    context,
    `sent a stream event that is not a completion chunk (got ${describeBody(chunk, context.secrets)})`,
  );
}

/** A short printable string from an untrusted reply field (an id, a model name), else undefined. */
function label(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "" || value.length > 256) return undefined;
  return /^[\x20-\x7e]+$/.test(value) ? value : undefined;
}

/** The completion's id and the model that answered, as the server named them (kept only when short and printable). */
export function toResponseIdentity(data: { id?: unknown; model?: unknown } | null | undefined): {
  responseId?: string;
  responseModel?: string;
} {
  const responseId = label(data?.id);
  const responseModel = label(data?.model);
  return {
    ...(responseId === undefined ? {} : { responseId }),
    ...(responseModel === undefined ? {} : { responseModel }),
  };
}

/**
 * The usage a server reported, with implausible counts (negative, fractional, over 10^9) left out and named
 * in `ignoredUsage`, so they are never added up or printed as usage.
 */
export function toUsage(
  usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | null | undefined,
  finishReason?: string | null,
): LLMUsage | undefined {
  if (!usage && !finishReason) return undefined;
  const result: LLMUsage = {};
  if (finishReason) result.finishReason = finishReason;
  if (!usage) return result;
  const ignored: string[] = [];
  const take = (name: "prompt_tokens" | "completion_tokens", field: "promptTokens" | "completionTokens") => {
    const value = usage[name];
    if (value === undefined || value === null) return;
    if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_PLAUSIBLE_TOKENS) {
      result[field] = value;
    } else {
      ignored.push(`${name}: ${String(value)}`);
    }
  };
  take("prompt_tokens", "promptTokens");
  take("completion_tokens", "completionTokens");
  if (ignored.length > 0) result.ignoredUsage = ignored;
  return result;
}
