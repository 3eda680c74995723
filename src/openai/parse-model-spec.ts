import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

/** A parsed `--model` value: what to pass to `OpenAILike` / `OpenAILikeEmbedding`. */
export interface ModelSpec {
  /** `openai`, `ollama`, or `openai-compatible` for an explicit base URL. */
  provider: "openai" | "ollama" | "openai-compatible";
  model: string;
  /** Absent for `openai:` (the client's default or OPENAI_BASE_URL applies). */
  baseURL?: string;
}

const validForms =
  'be "openai:<model>", "ollama:<model>" or "<baseURL>#<model>" (for example "openai:gpt-4o-mini", "ollama:llama3.1:8b", "http://localhost:8000/v1#Qwen/Qwen2.5-7B-Instruct")';

/** Ollama's port when `OLLAMA_HOST` names none. */
export const OLLAMA_DEFAULT_PORT = "11434";
/** Ollama's OpenAI-compatible endpoint when `OLLAMA_HOST` is not set: the one default, for the CLI too. */
export const OLLAMA_BASE_URL = `http://localhost:${OLLAMA_DEFAULT_PORT}/v1`;

/** Ollama's `/v1` URL from `OLLAMA_HOST` (`0.0.0.0:11434`, `http://gpu-box:11434`, `gpu-box`). */
export function ollamaBaseURL(host: string | undefined): string {
  if (!host?.trim()) return OLLAMA_BASE_URL;
  const withScheme = /^[a-z]+:\/\//i.test(host.trim()) ? host.trim() : `http://${host.trim()}`;
  const url = new URL(withScheme);
  if (!url.port && !/^[a-z]+:\/\/[^/]*:\d+/i.test(withScheme)) url.port = OLLAMA_DEFAULT_PORT;
  if (url.hostname === "0.0.0.0") url.hostname = "localhost";
  return `${url.origin}/v1`;
}

/**
 * Parses a CLI model spec: `openai:<model>`, `ollama:<model>` (base URL from `OLLAMA_HOST`, else
 * `http://localhost:11434/v1`) or `<baseURL>#<model>` for any OpenAI-compatible server (vLLM, llama.cpp).
 * @throws InvalidArgumentError listing the valid forms
 * @example
 * parseModelSpec("ollama:llama3.1:8b") // { provider: "ollama", model: "llama3.1:8b", baseURL: "http://localhost:11434/v1" }
 */
export function parseModelSpec(
  spec: string,
  { env = process.env }: { env?: Record<string, string | undefined> } = {},
): ModelSpec {
  const fail = (hint?: string): never => {
    throw new InvalidArgumentError({
      parameter: "model",
      value: spec,
      expected: validForms,
      ...(hint ? { hint } : {}),
    });
  };
  if (typeof spec !== "string" || spec.trim() === "") return fail();
  const value = spec.trim();
  if (/^https?:\/\//i.test(value)) {
    const hash = value.indexOf("#");
    const model = hash === -1 ? "" : value.slice(hash + 1).trim();
    if (!model) return fail("Add the model after `#`.");
    const baseURL = value.slice(0, hash).replace(/\/+$/, "");
    try {
      new URL(baseURL);
    } catch {
      return fail(`${JSON.stringify(baseURL)} is not a valid URL.`);
    }
    return { provider: "openai-compatible", baseURL, model };
  }
  const colon = value.indexOf(":");
  const prefix = colon === -1 ? "" : value.slice(0, colon).toLowerCase();
  const model = value.slice(colon + 1).trim();
  if (prefix === "openai" && model) return { provider: "openai", model };
  if (prefix === "ollama" && model) {
    let baseURL: string;
    try {
      baseURL = ollamaBaseURL(env.OLLAMA_HOST);
    } catch {
      return fail(`OLLAMA_HOST ${JSON.stringify(env.OLLAMA_HOST)} is not a valid host.`);
    }
    return { provider: "ollama", baseURL, model };
  }
  if (colon === -1) return fail(`Did you mean "openai:${value}" or "ollama:${value}"?`);
  return fail();
}
