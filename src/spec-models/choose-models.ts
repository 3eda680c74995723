import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { Embedder } from "../embedding/types.js";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import type { LLM, LLMMetadata } from "../llm/types.js";
import { OpenAILike, OpenAILikeEmbedding } from "../openai/index.js";
// Public values (`ragsynth/extend` exports them), imported from their files: the room's index is the root's.
import { OPENAI_BASE_URL } from "../openai/openai-connection.js";
import { type ModelSpec, OLLAMA_BASE_URL, parseModelSpec } from "../openai/parse-model-spec.js";
import type { RetryEvent } from "../util/retry.js";

export type Env = Readonly<Record<string, string | undefined>>;

function isOffline(spec: string | undefined, name: string): boolean {
  return spec === undefined || spec.trim().toLowerCase() === name;
}

/** Where a spec's requests go and with which key: Ollama needs none, so the OpenAI key is never sent there. */
function connection(spec: ModelSpec, env: Env): { baseURL: string; apiKey: string | undefined } {
  if (spec.provider === "ollama") return { baseURL: spec.baseURL ?? OLLAMA_BASE_URL, apiKey: "ollama" };
  const baseURL = spec.baseURL ?? env.OPENAI_BASE_URL ?? OPENAI_BASE_URL;
  return { baseURL, apiKey: env.RAGSYNTH_API_KEY ?? env.OPENAI_API_KEY };
}

/** What a spec chose to answer with: a model, or the offline extractive answerer. */
export interface LLMChoice {
  /** Builds the model (may throw `missing_api_key`); `onRetry` hears each retried attempt and its wait. */
  create(options?: { onRetry?: (event: RetryEvent) => void }): LLM;
  /**
   * What the model says about itself, without building a client or needing a key (for `plan`, which calls no
   * model); a command that calls the model takes `metadata` from the one it built instead.
   */
  metadata(): LLMMetadata;
  /** `extractive` or the spec as given. */
  label: string;
  /** True when nothing was configured and the offline default applies. */
  defaulted: boolean;
  /** The server the model is on (part of the call cache's key); none for the offline answerer. */
  baseURL?: string;
}

/**
 * The model a spec names (`--llm` / `RAGSYNTH_LLM`): `extractive` (or none: the offline answerer), `openai:<model>`,
 * `ollama:<model>` or `<baseURL>#<model>`. Nothing is built until `create`.
 * @throws the spec parser's error for a spec that cannot be read (nothing else throws here)
 */
export function chooseLLM(
  spec: string | undefined,
  {
    contextWindow,
    env,
    vision = false,
    timeoutMs,
    numOutput,
  }: {
    contextWindow: number | undefined;
    env: Env;
    vision?: boolean | undefined;
    timeoutMs?: number | undefined;
    /** `--num-output`: the offline answerer may write that many tokens (its default limit is 256). */
    numOutput?: number | undefined;
  },
): LLMChoice {
  if (isOffline(spec, "extractive")) {
    const create = () =>
      new ExtractiveLLM({
        ...(contextWindow === undefined ? {} : { contextWindow }),
        ...(numOutput === undefined ? {} : { maxOutputTokens: numOutput }),
      });
    return { create, metadata: () => create().metadata, label: "extractive", defaulted: spec === undefined };
  }
  const parsed = parseModelSpec(spec as string, { env: { ...env } });
  const { baseURL, apiKey } = connection(parsed, env);
  const options = {
    model: parsed.model,
    baseURL,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(vision ? { imageInput: "pixels" as const } : {}),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
  return {
    create: ({ onRetry } = {}) => new OpenAILike({ ...options, apiKey, ...(onRetry ? { onRetry } : {}) }),
    metadata: () => OpenAILike.metadataFor(options),
    label: spec as string,
    defaulted: false,
    baseURL,
  };
}

/** What a spec chose to embed with. */
export interface EmbedChoice {
  /**
   * Builds the embedder. The offline one weights queries only (`applyIdf: "query"`): the index lends it its
   * documents for the IDF (`VectorStoreIndex.queryEmbedModel`), read on the first query embedding only.
   */
  create(): Embedder;
  label: string;
}

/**
 * The embedder a spec names (`--embed` / `RAGSYNTH_EMBED`): `hashing` (or none: the offline one) or a model spec.
 * @throws the spec parser's error for a spec that cannot be read (nothing else throws here)
 */
export function chooseEmbedder(spec: string | undefined, env: Env, timeoutMs?: number): EmbedChoice {
  if (isOffline(spec, "hashing")) {
    return {
      create: () => new HashingEmbedder({ applyIdf: "query" }),
      label: "hashing",
    };
  }
  const parsed = parseModelSpec(spec as string, { env: { ...env } });
  const { baseURL, apiKey } = connection(parsed, env);
  return {
    create: () =>
      new OpenAILikeEmbedding({
        model: parsed.model,
        baseURL,
        apiKey,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      }),
    label: spec as string,
  };
}
