import { checkVector, checkVectors, similarity } from "../embedding/similarity.js";
import type { SimilarityMode } from "../embedding/types.js";
import { optionsOf } from "../errors/check-options.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

/** An id attached to an embedding: its index by default, or any string or number you pass. */
export type EmbeddingId = string | number;

/** Options of {@link getTopKEmbeddings}. */
export interface GetTopKEmbeddingsOptions<Id extends EmbeddingId = number> {
  /** The embedding to compare against. */
  queryEmbedding: readonly number[];
  /** The candidates, all of the query's length. */
  embeddings: readonly (readonly number[])[];
  /** How many to keep; `0` or `undefined` keeps all, as in LlamaIndex. @default undefined */
  similarityTopK?: number | undefined;
  /** One id per embedding. @default the indices 0…n−1 */
  embeddingIds?: readonly Id[] | undefined;
  /** Keep only scores strictly greater than this. @default undefined (no cutoff) */
  similarityCutoff?: number | undefined;
  /** @default "cosine" */
  mode?: SimilarityMode | undefined;
}

/** Scores in descending order, with the matching ids. */
export interface TopKEmbeddingsResult<Id extends EmbeddingId = number> {
  similarities: number[];
  ids: Id[];
}

type Entry<Id> = { score: number; id: Id };

/**
 * The most similar embeddings to a query, best first, selected with a bounded min-heap in O(n log k).
 *
 * Matches LlamaIndex's `get_top_k_embeddings`, ties included: among equal scores the larger ids
 * survive the heap, and the final descending sort is stable on the heap's internal order (three
 * identical vectors `a, b, c` give `[b, c]` for k = 2 and `[a, b, c]` without k).
 *
 * @throws InvalidArgumentError for mismatched lengths, a negative or fractional `similarityTopK`, or a
 * non-finite `similarityCutoff`.
 * @example
 * getTopKEmbeddings({ queryEmbedding: [1, 0], embeddings: [[1, 0], [0, 1], [0.6, 0.8]], similarityTopK: 2 });
 * // { similarities: [1, 0.6], ids: [0, 2] }
 */
export function getTopKEmbeddings<Id extends EmbeddingId = number>(
  options: GetTopKEmbeddingsOptions<Id>,
): TopKEmbeddingsResult<Id> {
  const {
    queryEmbedding,
    embeddings,
    similarityTopK,
    embeddingIds,
    similarityCutoff,
    mode = "cosine",
  } = optionsOf("options", options, "{ queryEmbedding, embeddings, similarityTopK?, … }");
  const ids = checkTopKInput(queryEmbedding, embeddings, embeddingIds, similarityTopK);
  if (similarityCutoff !== undefined && !Number.isFinite(similarityCutoff)) {
    throw new InvalidArgumentError({
      parameter: "similarityCutoff",
      value: similarityCutoff,
      expected: "be a finite number or undefined",
    });
  }
  const heap: Entry<Id>[] = [];
  for (let i = 0; i < embeddings.length; i++) {
    const score = similarity(queryEmbedding, embeddings[i] as readonly number[], mode);
    if (similarityCutoff !== undefined && !(score > similarityCutoff)) continue;
    heapPush(heap, { score, id: ids[i] as Id });
    if (similarityTopK && heap.length > similarityTopK) heapPop(heap);
  }
  // Array.prototype.sort is stable, like Python's sorted(reverse=True).
  heap.sort((left, right) => right.score - left.score);
  return { similarities: heap.map((entry) => entry.score), ids: heap.map((entry) => entry.id) };
}

/**
 * The heap selection of {@link getTopKEmbeddings} over scores computed elsewhere (a float32 matrix scan):
 * the `similarityTopK` best positions, best first, ties in the same order. @internal
 */
export function selectTopK(
  scores: ArrayLike<number>,
  similarityTopK: number | undefined,
): { similarities: number[]; ids: number[] } {
  validateTopK(similarityTopK);
  const heap: Entry<number>[] = [];
  for (let i = 0; i < scores.length; i++) {
    heapPush(heap, { score: scores[i] as number, id: i });
    if (similarityTopK && heap.length > similarityTopK) heapPop(heap);
  }
  heap.sort((left, right) => right.score - left.score);
  return { similarities: heap.map((entry) => entry.score), ids: heap.map((entry) => entry.id) };
}

/**
 * Checks what both top-k selections take (the query and candidate vectors, their ids, `similarityTopK`) and gives
 * the ids to report. @internal
 */
export function checkTopKInput<Id extends EmbeddingId>(
  queryEmbedding: readonly number[],
  embeddings: readonly (readonly number[])[],
  embeddingIds: readonly Id[] | undefined,
  similarityTopK: number | undefined,
): readonly Id[] {
  checkVector("queryEmbedding", queryEmbedding);
  checkVectors("embeddings", embeddings);
  const ids = resolveEmbeddingIds(embeddings, embeddingIds);
  validateTopK(similarityTopK);
  return ids;
}

/** The ids to report: the given ones (one per embedding) or the indices. */
function resolveEmbeddingIds<Id extends EmbeddingId>(
  embeddings: readonly (readonly number[])[],
  embeddingIds: readonly Id[] | undefined,
): readonly Id[] {
  if (embeddingIds === undefined) return embeddings.map((_, index) => index as Id);
  if (embeddingIds.length !== embeddings.length) {
    throw new InvalidArgumentError({
      parameter: "embeddingIds",
      value: embeddingIds,
      expected: `have one id per embedding (${embeddings.length}), but it has ${embeddingIds.length}`,
    });
  }
  return embeddingIds;
}

/** Checks that `similarityTopK` is undefined or a non-negative integer. @internal */
export function validateTopK(similarityTopK: number | undefined): void {
  if (similarityTopK === undefined || (Number.isInteger(similarityTopK) && similarityTopK >= 0)) return;
  throw new InvalidArgumentError({
    parameter: "similarityTopK",
    value: similarityTopK,
    expected: "be a non-negative integer (0 or undefined keeps all)",
  });
}

// Python compares (score, id) tuples: the scores first, then the ids. `!==` keeps NaN unequal, as Python does.
function less<Id extends EmbeddingId>(left: Entry<Id>, right: Entry<Id>): boolean {
  if (left.score !== right.score) return left.score < right.score;
  if (typeof left.id === "number" && typeof right.id === "number") return left.id < right.id;
  return String(left.id) < String(right.id);
}

// heappush and heappop follow Python's heapq step by step, so the internal order (which the final
// stable sort exposes for ties) is the same.
function heapPush<Id extends EmbeddingId>(heap: Entry<Id>[], entry: Entry<Id>): void {
  heap.push(entry);
  siftDown(heap, 0, heap.length - 1);
}

function heapPop<Id extends EmbeddingId>(heap: Entry<Id>[]): void {
  const last = heap.pop() as Entry<Id>;
  if (heap.length === 0) return;
  heap[0] = last;
  siftUp(heap, 0);
}

function siftDown<Id extends EmbeddingId>(heap: Entry<Id>[], start: number, position: number): void {
  const item = heap[position] as Entry<Id>;
  while (position > start) {
    const parentPosition = (position - 1) >> 1;
    const parent = heap[parentPosition] as Entry<Id>;
    if (!less(item, parent)) break;
    heap[position] = parent;
    position = parentPosition;
  }
  heap[position] = item;
}

function siftUp<Id extends EmbeddingId>(heap: Entry<Id>[], position: number): void {
  const end = heap.length;
  const start = position;
  const item = heap[position] as Entry<Id>;
  let child = 2 * position + 1;
  while (child < end) {
    const right = child + 1;
    if (right < end && !less(heap[child] as Entry<Id>, heap[right] as Entry<Id>)) child = right;
    heap[position] = heap[child] as Entry<Id>;
    position = child;
    child = 2 * position + 1;
  }
  heap[position] = item;
  siftDown(heap, start, position);
}
