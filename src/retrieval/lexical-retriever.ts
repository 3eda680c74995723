import { lexicalTokens } from "../analysis/lexical-tokens.js";
import { checkInteger } from "../errors/check-integer.js";
import { checkMethod, optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { NodeWithScore, TextNode } from "../schema/text-node.js";
import type { LexicalIndex } from "./lexical-index.js";
import { checkRetrieveOptions, type Retriever } from "./retriever.js";

/** Options of {@link createLexicalRetriever}. */
export interface LexicalRetrieverOptions {
  /**
   * The BM25 index to search: a {@link LexicalIndex}, or anything that searches and weighs terms as it does (a
   * store, whose answers may be promises).
   */
  index: LexicalSearchIndex;
  /** The node an indexed id stands for (or a promise of it); ids it does not know are skipped. */
  getNode: (id: string) => TextNode | undefined | Promise<TextNode | undefined>;
  /** How many nodes to return at most. @default 2 (LlamaIndex's default) */
  similarityTopK?: number | undefined;
  /**
   * Weight of the evidence from the rest of a node's file: each candidate gains
   * `sameFileWeight × ln(1 + the BM25 scores of the other candidates from its file)`, among the best
   * `max(10 × similarityTopK, 50)` matches. Nodes without a `file_path` are scored alone. 0 turns it off.
   * @default 0.3
   */
  sameFileWeight?: number | undefined;
  /**
   * Weight of the query's words in a node's `file_path`: each candidate gains `pathWeight × Σ idf` of the
   * query terms its path holds (a question naming `dotenv` is most likely about `node_modules/dotenv/README.md`).
   * Words every path shares add the same to all. 0 turns it off.
   * @default 2
   */
  pathWeight?: number | undefined;
}

/** What {@link createLexicalRetriever} searches: `LexicalIndex`'s `search` and `idf`, answered at once or later. */
export interface LexicalSearchIndex {
  search(
    query: string,
    options?: { topK?: number },
  ): ReturnType<LexicalIndex["search"]> | Promise<ReturnType<LexicalIndex["search"]>>;
  idf(term: string): number | Promise<number>;
}

/** How many matches the same-file evidence looks at, at least. */
const FILE_EVIDENCE_DEPTH = 50;

/**
 * A {@link Retriever} over a {@link LexicalIndex}: the `similarityTopK` nodes with the highest BM25
 * score, plus a little evidence from the other chunks of the same file (`sameFileWeight`: a file that matches
 * the query in many places is more likely about it than one stray chunk), best first, each with its score. A node that shares no term with the query is never
 * returned, so fewer nodes (or none) come back when few match — unlike a dense retriever, which
 * always fills `similarityTopK`.
 * @example
 * const retriever = createLexicalRetriever({ index, getNode: (id) => nodesById.get(id), similarityTopK: 4 });
 */
export function createLexicalRetriever(options: LexicalRetrieverOptions): Retriever {
  const {
    index,
    getNode,
    similarityTopK = 2,
    sameFileWeight = 0.3,
    pathWeight = 2,
  } = optionsOf("options", options, "{ index: LexicalIndex, getNode, similarityTopK?, … }");
  checkMethod(
    "index",
    index,
    "search",
    "be a LexicalIndex",
    "Build one with new LexicalIndex() and index.add(id, text) for each node.",
  );
  if (!(typeof pathWeight === "number" && pathWeight >= 0 && Number.isFinite(pathWeight))) {
    throw new InvalidArgumentError({
      parameter: "pathWeight",
      value: pathWeight,
      expected: "be a finite number ≥ 0",
    });
  }
  checkInteger("similarityTopK", similarityTopK, 1);
  if (!(typeof sameFileWeight === "number" && sameFileWeight >= 0 && Number.isFinite(sameFileWeight))) {
    throw new InvalidArgumentError({
      parameter: "sameFileWeight",
      value: sameFileWeight,
      expected: "be a finite number ≥ 0",
    });
  }
  if (typeof getNode !== "function") {
    throw new InvalidArgumentError({
      parameter: "getNode",
      value: getNode,
      expected: "be a function from an indexed id to its TextNode",
    });
  }
  return {
    async retrieve(options): Promise<NodeWithScore[]> {
      checkRetrieveOptions(options);
      const { query, signal } = options;
      signal?.throwIfAborted();
      const rerank = sameFileWeight > 0 || pathWeight > 0;
      const depth = rerank ? Math.max(similarityTopK * 10, FILE_EVIDENCE_DEPTH) : similarityTopK;
      let results: { node: TextNode; score: number }[] = [];
      for (const { id, score } of await index.search(query, { topK: depth })) {
        const node = await getNode(id);
        if (node) results.push({ node, score });
      }
      if (!rerank) return results;
      if (pathWeight > 0) results = await withPathEvidence(results, index, query, pathWeight);
      return withFileEvidence(results, sameFileWeight).slice(0, similarityTopK);
    },
  };
}

/** Adds to each match `weight × Σ idf` of the query terms its `file_path` holds. */
async function withPathEvidence(
  results: readonly { node: TextNode; score: number }[],
  index: Pick<LexicalSearchIndex, "idf">,
  query: string,
  weight: number,
): Promise<{ node: TextNode; score: number }[]> {
  const queryTerms = new Set(lexicalTokens(query));
  const bonusOf = new Map<string, number>();
  const weighted: { node: TextNode; score: number }[] = [];
  for (const { node, score } of results) {
    const path = node.metadata.file_path;
    if (typeof path !== "string") {
      weighted.push({ node, score });
      continue;
    }
    let bonus = bonusOf.get(path);
    if (bonus === undefined) {
      bonus = 0;
      for (const term of new Set(lexicalTokens(path.replace(/[\\/_.-]+/g, " "))))
        if (queryTerms.has(term)) bonus += await index.idf(term);
      bonusOf.set(path, bonus);
    }
    weighted.push({ node, score: score + weight * bonus });
  }
  return weighted;
}

/**
 * Adds to each match `weight × ln(1 + Σ scores of the other matches from its file)` and re-sorts, best first
 * (ties keep the BM25 order). The logarithm keeps a long file with many weak matches from burying a short
 * file's one strong match.
 */
function withFileEvidence(
  results: readonly { node: TextNode; score: number }[],
  weight: number,
): NodeWithScore[] {
  const fileOf = (node: TextNode) => {
    const path = node.metadata.file_path;
    return typeof path === "string" ? path : undefined;
  };
  const totals = new Map<string, number>();
  for (const { node, score } of results) {
    const file = fileOf(node);
    if (file !== undefined) totals.set(file, (totals.get(file) ?? 0) + score);
  }
  return results
    .map(({ node, score }) => {
      const file = fileOf(node);
      const others = file === undefined ? 0 : (totals.get(file) as number) - score;
      return { node, score: score + weight * Math.log1p(Math.max(0, others)) };
    })
    .sort((left, right) => right.score - left.score);
}
