import type { Embedder } from "../embedding/types.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexSource } from "./index-source.js";

/**
 * The embedder an index embeds queries with: its own embedder, or the one its `withQueryCorpus` returns (an
 * offline `HashingEmbedder` that weights queries only, `applyIdf: "query"`, and was given no corpus). That one
 * takes the index's documents as its IDF corpus (each document's chunks, or each chunk when the index keeps no
 * documents), read on the first query only, so a lexical search never pays for the fit and document vectors
 * never depend on the other files.
 */
export function queryEmbedModel(
  embedModel: Embedder,
  nodes: () => readonly TextNode[],
  sources: () => readonly IndexSource[],
): Embedder {
  return embedModel.withQueryCorpus?.(() => indexCorpus(nodes(), sources())) ?? embedModel;
}

/** One text per document: its chunks' text joined (the same words, so the same IDF as the document's). */
function indexCorpus(nodes: readonly TextNode[], sources: readonly IndexSource[]): string[] {
  if (sources.length === 0) return nodes.map((node) => node.text);
  const texts = new Map(nodes.map((node) => [node.id, node.text]));
  return sources.map((source) => source.nodeIds.map((id) => texts.get(id) ?? "").join("\n"));
}
