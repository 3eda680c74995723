import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { ollamaBaseURL, parseModelSpec } from "./parse-model-spec.js";

const env = {};

describe("parseModelSpec", () => {
  it("parses openai:<model>", () => {
    expect(parseModelSpec("openai:gpt-4o-mini", { env })).toEqual({
      provider: "openai",
      model: "gpt-4o-mini",
    });
  });

  it("parses ollama:<model>, keeping the tag, with the default or OLLAMA_HOST base URL", () => {
    expect(parseModelSpec("ollama:llama3.1:8b", { env })).toEqual({
      provider: "ollama",
      model: "llama3.1:8b",
      baseURL: "http://localhost:11434/v1",
    });
    expect(parseModelSpec("ollama:qwen2.5", { env: { OLLAMA_HOST: "http://gpu-box:9999" } }).baseURL).toBe(
      "http://gpu-box:9999/v1",
    );
  });

  it("parses <baseURL>#<model> for any OpenAI-compatible server", () => {
    expect(parseModelSpec("http://localhost:8000/v1#Qwen/Qwen2.5-7B-Instruct", { env })).toEqual({
      provider: "openai-compatible",
      baseURL: "http://localhost:8000/v1",
      model: "Qwen/Qwen2.5-7B-Instruct",
    });
    expect(parseModelSpec("https://example.com/v1/#m", { env }).baseURL).toBe("https://example.com/v1");
  });

  it("rejects anything else with an error listing the valid forms", () => {
    for (const bad of [
      "",
      "gpt-4o",
      "azure:gpt-4o",
      "openai:",
      "http://localhost:8000/v1",
      "http://localhost:8000/v1#",
    ]) {
      const error = (() => {
        try {
          parseModelSpec(bad, { env });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, bad).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message, bad).toContain(
        '"openai:<model>", "ollama:<model>" or "<baseURL>#<model>"',
      );
    }
    expect(() => parseModelSpec("gpt-4o", { env })).toThrow(
      'Did you mean "openai:gpt-4o" or "ollama:gpt-4o"?',
    );
  });
});

describe("ollamaBaseURL", () => {
  it("normalizes the forms OLLAMA_HOST takes", () => {
    expect(ollamaBaseURL(undefined)).toBe("http://localhost:11434/v1");
    expect(ollamaBaseURL("0.0.0.0:11434")).toBe("http://localhost:11434/v1");
    expect(ollamaBaseURL("gpu-box")).toBe("http://gpu-box:11434/v1");
    expect(ollamaBaseURL("https://ollama.example.com")).toBe("https://ollama.example.com:11434/v1");
    expect(ollamaBaseURL("http://127.0.0.1:80")).toBe("http://127.0.0.1/v1");
  });
});
