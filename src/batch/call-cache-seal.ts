import type { LLMUsage } from "../llm/types.js";
import { toUsage } from "../openai/check-response.js";
import { hmacSha256Hex, sha256Hex } from "../util/sha256.js";
import type { CachedCall } from "./call-cache.js";

/** The environment variable whose value, when set, signs call-cache entries with HMAC-SHA256 instead of SHA-256. */
export const CACHE_HMAC_KEY_ENV = "RAGSYNTH_CACHE_HMAC_KEY";

/** A cached call as stored: the answer, its usage, and a checksum of both and the call's key. */
export interface SealedCall extends CachedCall {
  /** `sha256:<hex>`, or `hmac-sha256:<hex>` with a key. */
  sum: string;
}

/** Why a stored entry was not replayed. */
export type CallCacheRejection = "checksum" | "shape";

/** Counts of the entries a cache refused to replay, by reason (reported by the CLI). */
export interface CallCacheRejections {
  checksum: number;
  shape: number;
}

function checksum(key: string, entry: CachedCall, hmacKey: string | undefined): string {
  const canonical = JSON.stringify([1, key, entry.text, entry.usage ?? null]);
  return hmacKey ? `hmac-sha256:${hmacSha256Hex(hmacKey, canonical)}` : `sha256:${sha256Hex(canonical)}`;
}

/** The entry with its checksum, ready to store under `key`. */
export function sealCachedCall(key: string, entry: CachedCall, hmacKey?: string): SealedCall {
  return { ...entry, sum: checksum(key, entry, hmacKey) };
}

/**
 * Reads back a stored entry: its checksum must match the key and the content (so an entry edited by hand, or
 * moved to another key, is refused), and its usage is checked as a server's live usage is (negative,
 * fractional or absurd counts are left out and named in `ignoredUsage`, so the tokenizer counts instead).
 */
export function openCachedCall(
  key: string,
  stored: unknown,
  hmacKey?: string,
): { entry: CachedCall } | { rejected: CallCacheRejection } {
  if (typeof stored !== "object" || stored === null) return { rejected: "shape" };
  const { text, usage, sum } = stored as { text?: unknown; usage?: unknown; sum?: unknown };
  if (typeof text !== "string" || typeof sum !== "string") return { rejected: "shape" };
  if (usage !== undefined && (typeof usage !== "object" || usage === null || Array.isArray(usage))) {
    return { rejected: "shape" };
  }
  const entry: CachedCall = usage === undefined ? { text } : { text, usage: usage as LLMUsage };
  if (sum !== checksum(key, entry, hmacKey)) return { rejected: "checksum" };
  return {
    entry: usage === undefined ? entry : { text, usage: checkedUsage(usage as Record<string, unknown>) },
  };
}

function checkedUsage(usage: Record<string, unknown>): LLMUsage {
  const checked =
    toUsage(
      { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens },
      typeof usage.finishReason === "string" ? usage.finishReason : null,
    ) ?? {};
  const { retries } = usage;
  if (typeof retries === "number" && Number.isInteger(retries) && retries >= 0 && retries <= 1000) {
    checked.retries = retries;
  }
  return checked;
}
