import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { Retriever } from "../query-engine/retriever.js";
import type { NodeWithScore, TextNode } from "../schema/text-node.js";
import type { LexicalIndex } from "./lexical-index.js";

/** Options of {@link createLexicalRetriever}. */
export interface LexicalRetrieverOptions {
  /** The BM25 index to search. */
  index: LexicalIndex;
  /** The node an indexed id stands for; ids it does not know are skipped. */
  getNode: (id: string) => TextNode | undefined;
  /** How many nodes to return at most. @default 2 (LlamaIndex's default) */
  similarityTopK?: number | undefined;
}

/**
 * A {@link Retriever} over a {@link LexicalIndex}: the `similarityTopK` nodes with the highest BM25
 * score, best first, each with its score. A node that shares no term with the query is never
 * returned, so fewer nodes (or none) come back when few match — unlike a dense retriever, which
 * always fills `similarityTopK`.
 * @example
 * const retriever = createLexicalRetriever({ index, getNode: (id) => nodesById.get(id), similarityTopK: 4 });
 */
export function createLexicalRetriever({
  index,
  getNode,
  similarityTopK = 2,
}: LexicalRetrieverOptions): Retriever {
  checkInteger("similarityTopK", similarityTopK, 1);
  if (typeof getNode !== "function") {
    throw new InvalidArgumentError({
      parameter: "getNode",
      value: getNode,
      expected: "be a function from an indexed id to its TextNode",
    });
  }
  return {
    async retrieve({ query, signal }): Promise<NodeWithScore[]> {
      signal?.throwIfAborted();
      const results: NodeWithScore[] = [];
      for (const { id, score } of index.search(query, { topK: similarityTopK })) {
        const node = getNode(id);
        if (node) results.push({ node, score });
      }
      return results;
    },
  };
}
