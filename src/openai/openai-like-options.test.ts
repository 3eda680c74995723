import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { OpenAILike } from "./openai-like.js";

afterEach(() => vi.unstubAllEnvs());

const local = "http://127.0.0.1:9/v1";

describe("OpenAILike metadata", () => {
  it("describes a known OpenAI model", () => {
    const llm = new OpenAILike({ model: "gpt-4o-mini", apiKey: "k", baseURL: "https://api.openai.com/v1" });
    expect(llm.metadata).toEqual({
      model: "gpt-4o-mini",
      provider: "openai",
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      isChatModel: true,
      tokenizer: "o200k_base",
      structuredOutput: "json_schema",
      kind: "generative",
      imageInput: "pixels",
      // Its images are counted by its own row of OpenAI's table (2,833 + 5,667 per tile).
      imageTokens: { kind: "openai", model: "gpt-4o-mini" },
      // Where it is served, for spans' server.address/port: host and port only.
      server: { address: "api.openai.com", port: 443 },
    });
    expect(new OpenAILike({ model: "gpt-3.5-turbo", apiKey: "k" }).metadata.imageInput).toBeUndefined();
  });

  it("assumes 3900 tokens for an unknown model and says so", () => {
    const { metadata } = new OpenAILike({ model: "my-finetune", baseURL: local });
    expect(metadata.contextWindow).toBe(3900);
    expect(metadata.maxOutputTokens).toBeUndefined();
    expect(metadata.structuredOutput).toBe("instructions");
    expect(metadata.assumptions).toContain(
      "contextWindow 3900 assumed for unknown model my-finetune; pass contextWindow",
    );
    expect(metadata.assumptions).toContain("tokenizer cl100k_base approximates my-finetune's own tokenizer");
  });

  it("lets contextWindow, maxOutputTokens and a user table override the built-in table", () => {
    const overridden = new OpenAILike({
      model: "gpt-4o",
      apiKey: "k",
      contextWindow: 50_000,
      maxOutputTokens: 2000,
    });
    expect(overridden.metadata).toMatchObject({ contextWindow: 50_000, maxOutputTokens: 2000 });
    expect(overridden.metadata.assumptions).toBeUndefined();
    const table = new OpenAILike({
      model: "house-model-v2",
      baseURL: local,
      modelLimits: { "house-model": { contextWindow: 32_000, maxOutputTokens: 4000 } },
    });
    expect(table.metadata).toMatchObject({ contextWindow: 32_000, maxOutputTokens: 4000 });
  });

  it("caps a local model's window at Ollama's num_ctx, or OLLAMA_CONTEXT_LENGTH", () => {
    vi.stubEnv("OLLAMA_CONTEXT_LENGTH", "");
    const ollama = new OpenAILike({ model: "llama3.1:8b", baseURL: "http://localhost:11434/v1" });
    expect(ollama.metadata.contextWindow).toBe(4096);
    expect(ollama.metadata.assumptions?.[0]).toBe(
      "contextWindow 4096 used instead of llama3.1:8b's 131072: Ollama runs models with num_ctx 4096 unless OLLAMA_CONTEXT_LENGTH or a Modelfile raises it; pass contextWindow to match your server",
    );
    vi.stubEnv("OLLAMA_CONTEXT_LENGTH", "32768");
    expect(
      new OpenAILike({ model: "llama3.1:8b", baseURL: "http://localhost:11434/v1" }).metadata.contextWindow,
    ).toBe(32_768);
    expect(
      new OpenAILike({ model: "llama3", baseURL: "http://localhost:11434/v1" }).metadata.contextWindow,
    ).toBe(8192);
    const explicit = new OpenAILike({
      model: "llama3.1:8b",
      baseURL: "http://localhost:11434/v1",
      contextWindow: 100_000,
    });
    expect(explicit.metadata.contextWindow).toBe(100_000);
    expect(
      new OpenAILike({ model: "llama3.1", baseURL: "http://localhost:8000/v1" }).metadata.contextWindow,
    ).toBe(131_072);
  });

  it("reads OPENAI_BASE_URL and OPENAI_API_KEY when options omit them", () => {
    vi.stubEnv("OPENAI_BASE_URL", "http://localhost:8000/v1");
    vi.stubEnv("OPENAI_API_KEY", "");
    expect(new OpenAILike({ model: "Qwen/Qwen2.5-7B-Instruct" }).metadata.structuredOutput).toBe(
      "instructions",
    );
    vi.stubEnv("OPENAI_BASE_URL", "");
    vi.stubEnv("OPENAI_API_KEY", "sk-env");
    expect(new OpenAILike({ model: "gpt-4o" }).metadata.structuredOutput).toBe("json_schema");
  });

  it("metadataFor says what the built model says, without a key or a client", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    const options = [
      { model: "gpt-4o-mini", baseURL: "https://api.openai.com/v1" },
      { model: "llama3.1", baseURL: "http://localhost:11434/v1", contextWindow: 8192 },
      { model: "my-finetune", baseURL: local, imageInput: "pixels" as const },
    ];
    for (const option of options) {
      expect(OpenAILike.metadataFor(option)).toEqual(new OpenAILike({ ...option, apiKey: "k" }).metadata);
    }
    // The official server without a key: the client refuses, its description does not.
    expect(() => new OpenAILike(options[0] as { model: string })).toThrow(/needs an API key/);
    expect(OpenAILike.metadataFor(options[0] as { model: string }).structuredOutput).toBe("json_schema");
    expect(() => OpenAILike.metadataFor({ model: "" })).toThrow(InvalidArgumentError);
  });

  it("rejects bad options with what was expected", () => {
    expect(() => new OpenAILike({ model: " ", baseURL: local })).toThrow(
      "Expected `model` to be a non-empty model id",
    );
    expect(() => new OpenAILike({ model: "m", baseURL: local, contextWindow: 0 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new OpenAILike({ model: "m", baseURL: local, maxRetries: -1 })).toThrow(
      "Expected `maxRetries`",
    );
    expect(() => new OpenAILike({ model: "m", baseURL: local, timeoutMs: 1.5 })).toThrow(
      "Expected `timeoutMs`",
    );
    expect(() => new OpenAILike({ model: "m", baseURL: "localhost:11434" })).toThrow(
      "Expected `baseURL` to be an http(s) URL",
    );
  });
});
