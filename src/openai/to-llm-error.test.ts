import { APIConnectionError, APIError } from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import type { LLMError } from "../errors/llm-error.js";
import { scrubSecrets } from "../errors/scrub-secrets.js";
import { loadOpenAISdk } from "./load-openai-sdk.js";
import { looksLikeOllama, redactUrl, toLLMError } from "./to-llm-error.js";

// Providers load the SDK before their first request; these tests build its errors directly.
beforeAll(() => loadOpenAISdk());

const context = { url: "http://localhost:8000/v1/chat/completions", secrets: ["my-secret-key"] };
const apiError = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  APIError.generate(status, { error: body }, undefined, new Headers(headers));

describe("scrubSecrets and redactUrl", () => {
  it("removes given secrets, bearer tokens and sk- keys", () => {
    expect(
      scrubSecrets("key my-secret-key, Bearer abc.def and sk-proj-abcdefghijkl", ["my-secret-key"]),
    ).toBe("key [REDACTED], Bearer [REDACTED] and [REDACTED]");
  });

  it("drops credentials, query and fragment from URLs", () => {
    expect(redactUrl("https://user:pw@host.example/v1/chat?api-key=abc#x")).toBe(
      "https://host.example/v1/chat",
    );
    expect(redactUrl("not a url")).toBe("(invalid URL)");
  });

  it("recognizes Ollama URLs", () => {
    expect(looksLikeOllama("http://localhost:11434/v1")).toBe(true);
    expect(looksLikeOllama("http://ollama.internal:80/v1")).toBe(true);
    // A server named by OLLAMA_HOST on another port is Ollama too (so the hint says "Is Ollama running?").
    expect(looksLikeOllama("http://gpu-box:8080/v1", "gpu-box:8080")).toBe(true);
    expect(looksLikeOllama("http://gpu-box:8080/v1", "other-box:8080")).toBe(false);
    expect(looksLikeOllama("http://gpu-box:8080/v1", "")).toBe(false);
    expect(looksLikeOllama("http://localhost:8000/v1")).toBe(false);
  });
});

describe("toLLMError", () => {
  it("maps statuses to codes and retryability", () => {
    const map = (status: number, body: Record<string, unknown> = { message: "m" }, headers = {}) =>
      toLLMError(apiError(status, body, headers), context) as LLMError;
    expect(map(403)).toMatchObject({ code: "llm_auth", retryable: false });
    expect(map(429, { message: "slow" }, { "retry-after": "3" })).toMatchObject({
      code: "llm_rate_limit",
      retryable: true,
      retryAfterMs: 3000,
    });
    expect(map(408)).toMatchObject({ code: "llm_timeout", retryable: true });
    expect(map(409)).toMatchObject({ code: "llm_server_error", retryable: true });
    expect(map(503)).toMatchObject({ code: "llm_server_error", retryable: true, status: 503 });
    expect(map(500, { message: "m" }, { "x-should-retry": "false" })).toMatchObject({ retryable: false });
    expect(map(400, { message: "prompt is too long: 9000 tokens" })).toMatchObject({
      code: "llm_context_length",
    });
    expect(map(404, { message: "model not found" })).toMatchObject({
      code: "llm_bad_request",
      retryable: false,
    });
  });

  it("suggests pulling the model when Ollama answers 404", () => {
    const error = toLLMError(apiError(404, { message: "model 'llama9' not found" }), {
      ...context,
      url: "http://localhost:11434/v1/chat/completions",
    }) as LLMError;
    expect(error.message).toContain("`ollama pull <model>`");
  });

  it("maps connection failures by phase", () => {
    const refused = new APIConnectionError({
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
    expect(toLLMError(refused, context)).toMatchObject({ code: "llm_unreachable", retryable: true });
    const dropped = new TypeError("terminated", {
      cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
    });
    expect(toLLMError(dropped, { ...context, deltasYielded: 0 })).toMatchObject({
      code: "llm_stream_interrupted",
      retryable: true,
    });
    expect(toLLMError(dropped, { ...context, deltasYielded: 3 })).toMatchObject({
      code: "llm_stream_interrupted",
      retryable: false,
    });
    expect(toLLMError(dropped, context)).toMatchObject({ code: "llm_unreachable", retryable: true });
  });

  it("passes aborts and unknown errors through", () => {
    const abort = new DOMException("aborted", "AbortError");
    expect(toLLMError(abort, context)).toBe(abort);
    const bug = new RangeError("bug");
    expect(toLLMError(bug, context)).toBe(bug);
  });

  it("replaces a cause that contains a secret with a scrubbed copy", () => {
    const error = toLLMError(apiError(401, { message: "bad my-secret-key" }), context) as LLMError;
    expect(error.message).toContain("bad [REDACTED]");
    expect(String((error.cause as Error).message)).not.toContain("my-secret-key");
    const clean = apiError(401, { message: "bad key" });
    expect((toLLMError(clean, context) as LLMError).cause).toBe(clean);
  });
});
