import { checkString } from "../errors/check-string.js";
/** What a model accepts and may generate, in tokens. */
export interface ModelLimits {
  /** Prompt plus output. */
  contextWindow: number;
  /** The most tokens one answer may have, when the provider documents it. */
  maxOutputTokens?: number;
}

/** A user table: a model name (or name prefix) to its limits, or to its context window alone. */
export type ModelLimitsTable = Readonly<Record<string, ModelLimits | number>>;

const openai: ModelLimitsTable = {
  "gpt-5": { contextWindow: 400_000, maxOutputTokens: 128_000 },
  "gpt-5-mini": { contextWindow: 400_000, maxOutputTokens: 128_000 },
  "gpt-5-nano": { contextWindow: 400_000, maxOutputTokens: 128_000 },
  "gpt-5-chat": { contextWindow: 128_000, maxOutputTokens: 16_384 },
  "gpt-5.1": { contextWindow: 400_000, maxOutputTokens: 128_000 },
  "gpt-4.1": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  "gpt-4.1-mini": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  "gpt-4.1-nano": { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  "gpt-4o": { contextWindow: 128_000, maxOutputTokens: 16_384 },
  "gpt-4o-mini": { contextWindow: 128_000, maxOutputTokens: 16_384 },
  "chatgpt-4o": { contextWindow: 128_000, maxOutputTokens: 16_384 },
  "gpt-4-turbo": { contextWindow: 128_000, maxOutputTokens: 4096 },
  "gpt-4-1106": { contextWindow: 128_000, maxOutputTokens: 4096 },
  "gpt-4-0125": { contextWindow: 128_000, maxOutputTokens: 4096 },
  "gpt-4": { contextWindow: 8192, maxOutputTokens: 8192 },
  "gpt-4-32k": { contextWindow: 32_768, maxOutputTokens: 8192 },
  "gpt-3.5-turbo": { contextWindow: 16_385, maxOutputTokens: 4096 },
  "gpt-3.5-turbo-instruct": { contextWindow: 4096, maxOutputTokens: 4096 },
  o1: { contextWindow: 200_000, maxOutputTokens: 100_000 },
  "o1-mini": { contextWindow: 128_000, maxOutputTokens: 65_536 },
  "o1-preview": { contextWindow: 128_000, maxOutputTokens: 32_768 },
  o3: { contextWindow: 200_000, maxOutputTokens: 100_000 },
  "o3-mini": { contextWindow: 200_000, maxOutputTokens: 100_000 },
  "o3-pro": { contextWindow: 200_000, maxOutputTokens: 100_000 },
  "o4-mini": { contextWindow: 200_000, maxOutputTokens: 100_000 },
  "gpt-oss": { contextWindow: 131_072 },
  "davinci-002": { contextWindow: 16_384 },
  "babbage-002": { contextWindow: 16_384 },
};

// Trained context lengths. Local servers may run them with less: see OpenAILike's Ollama note.
const local: ModelLimitsTable = {
  llama2: 4096,
  "llama-2": 4096,
  llama3: 8192,
  "llama-3": 8192,
  "meta-llama-3": 8192,
  "llama3.1": 131_072,
  "llama-3.1": 131_072,
  "meta-llama-3.1": 131_072,
  "llama3.2": 131_072,
  "llama-3.2": 131_072,
  "llama3.3": 131_072,
  "llama-3.3": 131_072,
  codellama: 16_384,
  qwen2: 32_768,
  "qwen2.5": 32_768,
  "qwen2.5-coder": 32_768,
  qwen3: 40_960,
  mistral: 32_768,
  "mistral-7b": 32_768,
  "mistral-nemo": 128_000,
  "mistral-small": 32_768,
  "mistral-large": 131_072,
  mixtral: 32_768,
  gemma: 8192,
  gemma2: 8192,
  "gemma-2": 8192,
  gemma3: 131_072,
  "gemma-3": 131_072,
  phi3: 4096,
  "phi-3": 4096,
  "phi3-mini-128k": 131_072,
  "phi3-medium-128k": 131_072,
  "phi3.5": 131_072,
  "phi-3.5": 131_072,
  phi4: 16_384,
  "phi-4": 16_384,
  "deepseek-r1": 131_072,
  "command-r": 131_072,
};

/** The built-in table: common OpenAI models (with output limits) and common local models. */
export const MODEL_CONTEXT_WINDOWS: ModelLimitsTable = { ...openai, ...local };

/**
 * Lowercases, drops an organisation or provider prefix (`meta-llama/`, `openai/`) and turns an Ollama
 * tag separator into a dash, so `meta-llama/Llama-3.1-8B-Instruct` and `llama3.1:8b` find their entry.
 */
function normalize(model: string): string {
  return model.trim().toLowerCase().replace(/^.*\//, "").replace(/:/g, "-");
}

function findIn(table: ModelLimitsTable, id: string): { key: string; limits: ModelLimits } | undefined {
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    const name = normalize(key);
    const matches = id === name || (id.startsWith(name) && /[-_@ ]/.test(id.charAt(name.length)));
    if (matches && (best === undefined || name.length > normalize(best).length)) best = key;
  }
  if (best === undefined) return undefined;
  const value = table[best];
  if (value === undefined) return undefined;
  return { key: best, limits: typeof value === "number" ? { contextWindow: value } : value };
}

/**
 * The limits of a model, from `table` first and then the built-in {@link MODEL_CONTEXT_WINDOWS}. Names
 * match exactly or by the longest prefix ending at `-`, `_`, `@` or a tag (`gpt-4o-2024-08-06` → `gpt-4o`,
 * `qwen2.5:7b-instruct` → `qwen2.5`); a dot is not a boundary, so `llama3.4` does not become `llama3`.
 * @returns undefined for an unknown model
 */
export function lookupModelLimits(
  model: string,
  table?: ModelLimitsTable,
): (ModelLimits & { matched: string }) | undefined {
  checkString("model", model);
  const id = normalize(model);
  const found = (table && findIn(table, id)) ?? findIn(MODEL_CONTEXT_WINDOWS, id);
  return found ? { ...found.limits, matched: found.key } : undefined;
}
