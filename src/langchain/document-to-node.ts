import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";

/** The parts of a LangChain `Document` ragsynth reads. */
export interface LangChainDocumentLike {
  pageContent: string;
  metadata?: Record<string, unknown> | undefined;
  id?: string | undefined;
}

/** Metadata keys LangChain retrievers use for a relevance score (rerankers, hybrid search). */
export const LANGCHAIN_SCORE_KEYS = ["relevanceScore", "relevance_score", "score", "_score"] as const;

/**
 * A LangChain document as a scored node: `pageContent` becomes the text, `metadata` the metadata, `id` the
 * node id. A numeric score under one of `scoreKeys` (or the `score` given) becomes the node's score and
 * leaves the metadata, so the model does not read it as part of the source.
 */
export function documentToNode(
  document: LangChainDocumentLike,
  {
    score,
    scoreKeys = LANGCHAIN_SCORE_KEYS,
    parameter = "document",
  }: { score?: number | undefined; scoreKeys?: readonly string[]; parameter?: string } = {},
): NodeWithScore {
  if (typeof document?.pageContent !== "string") {
    throw new InvalidArgumentError({
      parameter,
      value: document,
      expected: "be a LangChain Document (an object with a pageContent string)",
    });
  }
  const metadata: Record<string, unknown> = { ...(document.metadata ?? {}) };
  let found = score;
  for (const key of scoreKeys) {
    const value = metadata[key];
    if (typeof value !== "number" || !Number.isFinite(value)) continue;
    found ??= value;
    delete metadata[key];
    break;
  }
  const node = new TextNode({
    text: document.pageContent,
    metadata,
    ...(typeof document.id === "string" && document.id !== "" ? { id: document.id } : {}),
  });
  return found === undefined ? { node } : { node, score: found };
}
