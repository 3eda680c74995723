import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

/** The embeddings of many texts, each distinct text embedded once. */
export interface SentenceEmbeddings {
  get(text: string): number[];
  /** `getTextEmbeddings` calls made. */
  calls: number;
  /** Distinct texts embedded. */
  distinct: number;
}

/**
 * Embeds the sentences of every node in batches of `batchSize` distinct texts: one call per batch across
 * nodes, not one per node, and a sentence repeated across nodes (overlapping chunks, shared headers) once.
 */
export async function embedSentences({
  embedModel,
  texts,
  batchSize,
  signal,
}: {
  embedModel: Embedder;
  texts: Iterable<string>;
  batchSize: number;
  signal: AbortSignal | undefined;
}): Promise<SentenceEmbeddings> {
  const distinct = [...new Set(texts)];
  const vectors = new Map<string, number[]>();
  let calls = 0;
  for (let start = 0; start < distinct.length; start += batchSize) {
    signal?.throwIfAborted();
    const batch = distinct.slice(start, start + batchSize);
    const embeddings = await embedModel.getTextEmbeddings(batch, signal ? { signal } : {});
    calls += 1;
    if (!Array.isArray(embeddings) || embeddings.length !== batch.length) {
      throw new InvalidArgumentError({
        parameter: "embedModel",
        value: Array.isArray(embeddings) ? `${embeddings.length} embeddings` : embeddings,
        expected: `return one embedding per text from getTextEmbeddings (${batch.length})`,
        hint: `Embedder ${JSON.stringify(embedModel.id)} broke the Embedder contract.`,
      });
    }
    for (const [index, text] of batch.entries()) vectors.set(text, embeddings[index] as number[]);
  }
  return {
    get: (text) => vectors.get(text) as number[],
    calls,
    distinct: distinct.length,
  };
}
