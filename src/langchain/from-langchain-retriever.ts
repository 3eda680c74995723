import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { checkRetrieveOptions, type QueryOptions, type Retriever } from "../retrieval/retriever.js";
import { abortable } from "../util/abort.js";
import { documentToNode, LANGCHAIN_SCORE_KEYS, type LangChainDocumentLike } from "./document-to-node.js";

/** The part of a LangChain retriever ragsynth calls: `invoke(query, { signal })`. Every `BaseRetriever` has it. */
export interface LangChainRetrieverLike {
  invoke(query: string, options?: { signal?: AbortSignal }): Promise<LangChainDocumentLike[]>;
}

/** The part of a LangChain vector store ragsynth calls for scored results. */
export interface LangChainVectorStoreLike {
  similaritySearchWithScore(
    query: string,
    k?: number,
    filter?: never,
  ): Promise<Array<[LangChainDocumentLike, number]>>;
}

/** Options of {@link fromLangChainRetriever}. */
export interface FromLangChainRetrieverOptions {
  /** Metadata keys read as the node's score, first match wins. @default ["relevanceScore", "relevance_score", "score", "_score"] */
  scoreKeys?: readonly string[] | undefined;
}

/**
 * Any LangChain.js retriever (so every vector store LangChain supports, via `store.asRetriever()`) as a
 * ragsynth {@link Retriever}: documents become nodes with their metadata and id. LangChain retrievers
 * return no scores, except in metadata (rerankers write `relevanceScore`); use
 * {@link fromLangChainVectorStore} for similarity scores.
 * @example
 * const engine = new RetrieverQueryEngine({ retriever: fromLangChainRetriever(store.asRetriever(4)), llm });
 */
export function fromLangChainRetriever(
  retriever: LangChainRetrieverLike,
  options: FromLangChainRetrieverOptions = {},
): Retriever {
  if (typeof retriever?.invoke !== "function") {
    throw new InvalidArgumentError({
      parameter: "retriever",
      value: retriever,
      expected: "be a LangChain retriever (an object with invoke(query))",
      hint: "vectorStore.asRetriever() gives one.",
    });
  }
  const scoreKeys = options.scoreKeys ?? LANGCHAIN_SCORE_KEYS;
  return {
    async retrieve(options: QueryOptions) {
      checkRetrieveOptions(options);
      const { query, signal } = options;
      // Raced with the signal: LangChain retrievers do not all stop when it aborts.
      const documents = await abortable(() => retriever.invoke(query, signal ? { signal } : {}), signal);
      return documents.map((document, index) =>
        documentToNode(document, { scoreKeys, parameter: `retriever result [${index}]` }),
      );
    },
  };
}

/**
 * A LangChain.js vector store as a ragsynth {@link Retriever} with similarity scores: the `k` best
 * documents from `similaritySearchWithScore`, best first.
 * @param k How many documents to retrieve. @default 4
 */
export function fromLangChainVectorStore(
  store: LangChainVectorStoreLike,
  { k = 4 }: { k?: number } = {},
): Retriever {
  if (typeof store?.similaritySearchWithScore !== "function") {
    throw new InvalidArgumentError({
      parameter: "store",
      value: store,
      expected: "be a LangChain vector store (an object with similaritySearchWithScore())",
      hint: "For a retriever without scores, use fromLangChainRetriever(store.asRetriever()).",
    });
  }
  checkInteger("k", k, 1);
  return {
    async retrieve(options: QueryOptions) {
      checkRetrieveOptions(options);
      const { query, signal } = options;
      const results = await abortable(() => store.similaritySearchWithScore(query, k), signal);
      return results.map(([document, score], index) =>
        documentToNode(document, { score, scoreKeys: [], parameter: `vector store result [${index}]` }),
      );
    },
  };
}
