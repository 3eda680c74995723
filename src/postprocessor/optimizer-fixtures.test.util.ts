// Shared test fixtures (not shipped: the package excludes `*.test.*`).
import { TextNode } from "../schema/text-node.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import {
  SentenceEmbeddingOptimizer,
  type SentenceEmbeddingOptimizerOptions,
} from "./sentence-embedding-optimizer.js";

export const QUERY = "the query";
export const bySpace = (text: string) => text.split(" ");

// OPT-D: a=(1,0,0), b=(.9,.1,0), c=(0,1,0), d=(.5,.5,0), e=(0,0,1); the query is (1,0,0).
export const D_TABLE = { a: [1, 0, 0], b: [0.9, 0.1, 0], c: [0, 1, 0], d: [0.5, 0.5, 0], e: [0, 0, 1] };

/** Runs the optimizer over one node with a lookup-table embedder in which `QUERY` maps to `queryVector`. */
export async function optimize(
  text: string | TextNode,
  queryVector: number[],
  table: Record<string, number[]>,
  options: Omit<SentenceEmbeddingOptimizerOptions, "embedModel">,
) {
  const embedModel = new MockEmbedding({ embeddings: { ...table, [QUERY]: queryVector } });
  const node = typeof text === "string" ? new TextNode({ id: "n", text }) : text;
  const result = await new SentenceEmbeddingOptimizer({ embedModel, ...options }).postprocessNodes(
    [{ node }],
    {
      query: QUERY,
    },
  );
  return { text: result[0]?.node.text, result, embedModel };
}
