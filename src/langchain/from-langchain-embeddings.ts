import type { Embedder, EmbedOptions } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { abortable } from "../util/abort.js";

/** The parts of LangChain `Embeddings` ragsynth calls (`OpenAIEmbeddings`, `OllamaEmbeddings`, …). */
export interface LangChainEmbeddingsLike {
  embedDocuments(documents: string[]): Promise<number[][]>;
  embedQuery(document: string): Promise<number[]>;
}

/** Options of {@link fromLangChainEmbeddings}. */
export interface FromLangChainEmbeddingsOptions {
  /**
   * The embedder's stable id, the cache key of stored vectors: change it when the model or its settings change.
   * @default `langchain:<class name>[:<model>]` from the instance
   */
  id?: string | undefined;
}

function defaultId(embeddings: LangChainEmbeddingsLike): string {
  const className = (embeddings as { constructor?: { name?: unknown } }).constructor?.name;
  const record = embeddings as { model?: unknown; modelName?: unknown };
  const model = typeof record.model === "string" ? record.model : record.modelName;
  const base = `langchain:${typeof className === "string" && className !== "Object" ? className : "embeddings"}`;
  return typeof model === "string" && model !== "" ? `${base}:${model}` : base;
}

/**
 * Adapts LangChain.js `Embeddings` to ragsynth's {@link Embedder}, for `VectorStoreIndex` and the
 * `SentenceEmbeddingOptimizer`. LangChain batches and retries on its own; the abort signal stops ragsynth
 * from waiting (LangChain's embeddings take no signal, so a request already sent runs to its end).
 * @example
 * import { OpenAIEmbeddings } from "@langchain/openai";
 * const embedder = fromLangChainEmbeddings(new OpenAIEmbeddings({ model: "text-embedding-3-small" }));
 */
export function fromLangChainEmbeddings(
  embeddings: LangChainEmbeddingsLike,
  options: FromLangChainEmbeddingsOptions = {},
): Embedder {
  if (typeof embeddings?.embedDocuments !== "function" || typeof embeddings.embedQuery !== "function") {
    throw new InvalidArgumentError({
      parameter: "embeddings",
      value: embeddings,
      expected: "be LangChain Embeddings (an object with embedDocuments() and embedQuery())",
      hint: "Pass an Embeddings instance such as new OpenAIEmbeddings() from @langchain/openai.",
    });
  }
  return {
    id: options.id ?? defaultId(embeddings),
    getTextEmbeddings: (texts: string[], { signal }: EmbedOptions = {}) =>
      texts.length === 0 ? Promise.resolve([]) : abortable(() => embeddings.embedDocuments(texts), signal),
    getQueryEmbedding: (query: string, { signal }: EmbedOptions = {}) =>
      abortable(() => embeddings.embedQuery(query), signal),
  };
}
