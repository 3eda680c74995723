import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { createFusionRetriever } from "../retrieval/fusion-retriever.js";
import { LexicalIndex, RETRIEVAL_BM25 } from "../retrieval/lexical-index.js";
import { createLexicalRetriever } from "../retrieval/lexical-retriever.js";
import { RETRIEVAL_MODES, type RetrievalMode, type Retriever } from "../retrieval/retriever.js";
import {
  createVectorIndexRetriever,
  type VectorIndexRetrieverOptions,
} from "../retrieval/vector-index-retriever.js";
import { MetadataMode, type TextNode } from "../schema/text-node.js";
import type { IndexEntry } from "./embed-nodes.js";

/** Options of `VectorStoreIndex.asRetriever`. */
export interface AsRetrieverOptions extends VectorIndexRetrieverOptions {
  /**
   * How nodes are ranked: BM25 (`"lexical"`), embedding similarity (`"dense"`) or both fused by reciprocal
   * rank (`"hybrid"`). Deliberate difference from LlamaIndex, whose `as_retriever` is always dense: the
   * offline HashingEmbedder is lexical and collides words, so BM25 replaces it; a real embedding model is
   * fused with BM25, which catches the exact names, flags and versions that embeddings blur.
   * @default "lexical" with a `lexical` embedder (HashingEmbedder), else "hybrid"
   */
  retrievalMode?: RetrievalMode | undefined;
}

/** The mode used when none is given: lexical for a `lexical` embedder (the offline HashingEmbedder), hybrid for a real model. */
export function defaultRetrievalMode(embedModel: Embedder): RetrievalMode {
  return embedModel.lexical === true ? "lexical" : "hybrid";
}

/**
 * Builds the BM25 index over what each node's embedder would see (its text and `file_path` line), with the
 * retrieval parameters ({@link RETRIEVAL_BM25}) the store's search uses too.
 */
export function buildLexicalIndex(nodes: Iterable<TextNode>): LexicalIndex {
  const index = new LexicalIndex(RETRIEVAL_BM25);
  for (const node of nodes) index.add(node.id, lexicalContent(node));
  return index;
}

/** The text the lexical index holds for a node. */
export function lexicalContent(node: TextNode): string {
  return node.getContent(MetadataMode.EMBED);
}

/** The retriever for one mode over an index's entries. @throws InvalidArgumentError for an unknown mode */
export function createIndexRetriever({
  entries,
  embedModel,
  lexical,
  options: { retrievalMode = defaultRetrievalMode(embedModel), similarityTopK = 2 },
}: {
  entries: readonly IndexEntry[];
  embedModel: Embedder;
  lexical: () => LexicalIndex;
  options: AsRetrieverOptions;
}): Retriever {
  if (!RETRIEVAL_MODES.includes(retrievalMode)) {
    throw new InvalidArgumentError({
      parameter: "retrievalMode",
      value: retrievalMode,
      expected: `be one of ${RETRIEVAL_MODES.map((mode) => `"${mode}"`).join(", ")}`,
    });
  }
  const dense = () => createVectorIndexRetriever(entries, embedModel, { similarityTopK });
  if (retrievalMode === "dense") return dense();
  const byId = new Map(entries.map((entry) => [entry.node.id, entry.node]));
  const bm25 = createLexicalRetriever({ index: lexical(), getNode: (id) => byId.get(id), similarityTopK });
  if (retrievalMode === "lexical") return bm25;
  return createFusionRetriever({ retrievers: [bm25, dense()], similarityTopK });
}
