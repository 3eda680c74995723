import { checkMethod, optionsOf } from "../errors/check-options.js";
import { checkModel } from "../llm/check-model.js";
import type { ChatMessage, LLM, LLMCallOptions, LLMResult, LLMUsage } from "../llm/types.js";
import { sha256Hex } from "../util/sha256.js";

/** A completed model call as the cache keeps it: the answer and the usage it cost when it was paid for. */
export interface CachedCall {
  text: string;
  usage?: LLMUsage;
}

/** Where completed calls are kept: a local file ({@link FileCallCache}) or Redis ({@link RedisCallCache}). */
export interface CallCacheStore {
  get(key: string): Promise<CachedCall | undefined>;
  set(key: string, entry: CachedCall): Promise<void>;
}

/** What makes two calls the same call. Credentials are never part of it. */
export interface CallCacheKeyParts {
  model: string;
  /** The server the model lives on (`https://api.openai.com/v1`); two servers' `llama3` are different models. */
  baseURL?: string | undefined;
  /** Parameters that change the answer (`temperature`, `seed`, …), as the caller configured the model. */
  parameters?: Record<string, unknown> | undefined;
  input: { prompt: string } | { messages: ChatMessage[] };
  maxTokens?: number | undefined;
  responseFormat?: LLMCallOptions["responseFormat"];
}

/** The cache key of a call: a SHA-256 of its model, server, input and answer-changing parameters. */
export function callCacheKey(given: CallCacheKeyParts): string {
  const parts = optionsOf("parts", given, "{ model, baseURL?, request, … }");
  const canonical = JSON.stringify([
    1,
    parts.model,
    parts.baseURL ?? null,
    sortKeys(parts.parameters ?? {}),
    parts.input,
    parts.maxTokens ?? null,
    parts.responseFormat ?? null,
  ]);
  return sha256Hex(canonical);
}

function sortKeys(value: Record<string, unknown>): [string, unknown][] {
  return Object.keys(value)
    .sort()
    .map((key) => [key, value[key]]);
}

/** Options of {@link withCallCache}. */
export interface WithCallCacheOptions {
  llm: LLM;
  store: CallCacheStore;
  /** Part of the key: the model's server. */
  baseURL?: string | undefined;
  /** Part of the key: answer-changing settings of the model (`temperature`). Never pass the API key. */
  parameters?: Record<string, unknown> | undefined;
}

/** An {@link LLM} that answers repeated calls from a cache; `stats` counts hits (replayed) and misses (paid). */
export type CachedLLM = LLM & { readonly stats: { hits: number; misses: number } };

/**
 * Wraps a model so that a call made before (same model, server, prompt or messages, `maxTokens`,
 * `responseFormat` and `parameters`) is replayed from `store` instead of paid for again, with the usage it
 * cost the first time. A streamed call is stored once it finished; a replayed stream yields the whole text as
 * one delta. Identical calls in flight at once are sent once. Works with every response mode, since it sits
 * below them.
 * @example const llm = withCallCache({ llm: new OpenAILike({ model }), store: await FileCallCache.open(path) });
 */
export function withCallCache(options: WithCallCacheOptions): CachedLLM {
  const { llm, store, baseURL, parameters } = optionsOf(
    "options",
    options,
    "{ llm, store, baseURL?, parameters? }",
  );
  checkModel("llm", llm);
  checkMethod(
    "store",
    store,
    "get",
    "be a call cache store (get and set)",
    "await FileCallCache.open(path) or new RedisCallCache({ client }) is one.",
  );
  const stats = { hits: 0, misses: 0 };
  const inFlight = new Map<string, Promise<CachedCall>>();
  const keyOf = (input: CallCacheKeyParts["input"], options: LLMCallOptions | undefined) =>
    callCacheKey({
      model: llm.metadata.model,
      baseURL,
      parameters,
      input,
      maxTokens: options?.maxTokens,
      responseFormat: options?.responseFormat,
    });

  const replay = (entry: CachedCall, options: LLMCallOptions | undefined): LLMResult => {
    stats.hits += 1;
    if (entry.usage) options?.onUsage?.(entry.usage);
    return entry.usage ? { text: entry.text, usage: entry.usage } : { text: entry.text };
  };

  // Registered before the first await, so an identical call arriving meanwhile joins this one.
  const once = (
    key: string,
    options: LLMCallOptions | undefined,
    pay: (options: LLMCallOptions) => Promise<LLMResult>,
  ): Promise<LLMResult> => {
    const joined = inFlight.get(key);
    if (joined) return joined.then((entry) => replay(entry, options));
    let paid = false;
    const entry = (async (): Promise<CachedCall> => {
      const cached = await store.get(key);
      if (cached) return cached;
      paid = true;
      stats.misses += 1;
      let reported: LLMUsage | undefined;
      const result = await pay({
        ...options,
        onUsage: (usage) => {
          reported = { ...reported, ...usage };
          options?.onUsage?.(usage);
        },
      });
      const usage = result.usage ?? reported;
      const fresh = usage ? { text: result.text, usage } : { text: result.text };
      await store.set(key, fresh);
      return fresh;
    })();
    inFlight.set(key, entry);
    return entry
      .then((settled) => (paid ? settled : replay(settled, options)))
      .finally(() => inFlight.delete(key));
  };

  async function* replayOrRecord(
    key: string,
    options: LLMCallOptions | undefined,
    open: (options: LLMCallOptions) => AsyncIterable<string>,
  ): AsyncIterable<string> {
    const cached = await store.get(key);
    if (cached) {
      stats.hits += 1;
      if (cached.usage) options?.onUsage?.(cached.usage);
      if (cached.text !== "") yield cached.text;
      return;
    }
    stats.misses += 1;
    let usage: LLMUsage | undefined;
    let text = "";
    const stream = open({
      ...options,
      onUsage: (reported) => {
        usage = { ...usage, ...reported };
        options?.onUsage?.(reported);
      },
    });
    for await (const delta of stream) {
      text += delta;
      yield delta;
    }
    await store.set(key, usage ? { text, usage } : { text });
  }

  return {
    get metadata() {
      return llm.metadata;
    },
    stats,
    complete: (prompt, options) =>
      once(keyOf({ prompt }, options), options, (hooked) => llm.complete(prompt, hooked)),
    chat: (messages, options) =>
      once(keyOf({ messages }, options), options, (hooked) => llm.chat(messages, hooked)),
    streamComplete: (prompt, options) =>
      replayOrRecord(keyOf({ prompt }, options), options, (hooked) => llm.streamComplete(prompt, hooked)),
    streamChat: (messages, options) =>
      replayOrRecord(keyOf({ messages }, options), options, (hooked) => llm.streamChat(messages, hooked)),
  };
}

/** Calls paid (cache misses) and replayed (hits) across the models given; undefined when none goes through a cache. */
export function countCachedCalls(
  models: ReadonlyArray<LLM | undefined>,
): { paid: number; replayed: number } | undefined {
  let counted: { paid: number; replayed: number } | undefined;
  for (const model of models) {
    const stats = (model as Partial<CachedLLM> | undefined)?.stats;
    if (!stats) continue;
    counted = { paid: (counted?.paid ?? 0) + stats.misses, replayed: (counted?.replayed ?? 0) + stats.hits };
  }
  return counted;
}
