import type { LLMErrorCode } from "./ragsynth-error.js";

/**
 * The one mapping from an HTTP status to an {@link LLMErrorCode}, for every provider: 401/403 `llm_auth`,
 * 429 `llm_rate_limit`, 408 `llm_timeout`, 409 and 5xx (or no status at all) `llm_server_error`, any other
 * 4xx `llm_bad_request`. Providers refine `llm_bad_request` further where the body says more (context length).
 */
export function llmErrorCodeForStatus(status: number | undefined): LLMErrorCode {
  if (status === 401 || status === 403) return "llm_auth";
  if (status === 429) return "llm_rate_limit";
  if (status === 408) return "llm_timeout";
  if (status === undefined || status === 409 || status >= 500) return "llm_server_error";
  return "llm_bad_request";
}
