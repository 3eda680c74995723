import { describe, expect, it } from "vitest";
import { llmErrorCodeForStatus } from "./llm-error-code-for-status.js";

describe("llmErrorCodeForStatus", () => {
  it("is the one status → code rule (408 is a timeout for every provider)", () => {
    expect([401, 403, 429, 408, 409, 500, 503, undefined, 400, 404, 422].map(llmErrorCodeForStatus)).toEqual([
      "llm_auth",
      "llm_auth",
      "llm_rate_limit",
      "llm_timeout",
      "llm_server_error",
      "llm_server_error",
      "llm_server_error",
      "llm_server_error",
      "llm_bad_request",
      "llm_bad_request",
      "llm_bad_request",
    ]);
  });
});
