import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { SimilarityMode } from "./types.js";

/** The similarity modes, in LlamaIndex's spelling. */
export const SIMILARITY_MODES: readonly SimilarityMode[] = ["cosine", "dot_product", "euclidean"];

/**
 * Compares two embeddings: `cosine` (`dot / (‖a‖·‖b‖)`), `dot_product`, or `euclidean`, which returns
 * the negative distance so that larger always means closer.
 *
 * Deliberate difference from LlamaIndex: the cosine of a zero vector is `0`, not `NaN`, so a blank
 * sentence ranks last instead of poisoning sorts and heaps.
 *
 * @param a The first embedding.
 * @param b The second embedding, of the same length.
 * @param mode @default "cosine"
 * @throws InvalidArgumentError when the lengths differ or the mode is unknown.
 * @example
 * similarity([1, 2], [3, 4], "dot_product"); // 11
 */
export function similarity(
  a: readonly number[],
  b: readonly number[],
  mode: SimilarityMode = "cosine",
): number {
  checkVector("a", a);
  checkVector("b", b);
  if (a.length !== b.length) {
    throw new InvalidArgumentError({
      parameter: "b",
      value: b,
      expected: `have the same length as \`a\` (${a.length}), but it has length ${b.length}`,
      hint: "Both embeddings must come from the same model.",
    });
  }
  switch (mode) {
    case "cosine":
      return cosine(a, b);
    case "dot_product":
      return dot(a, b);
    case "euclidean":
      return -euclideanDistance(a, b);
    default:
      throw new InvalidArgumentError({
        parameter: "mode",
        value: mode,
        expected: `be one of ${SIMILARITY_MODES.map((name) => `"${name}"`).join(", ")}`,
      });
  }
}

function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let product = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    product += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (normA === 0 || normB === 0) return 0;
  return product / (Math.sqrt(normA) * Math.sqrt(normB));
}

function euclideanDistance(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const difference = (a[i] as number) - (b[i] as number);
    sum += difference * difference;
  }
  return Math.sqrt(sum);
}

/** Throws an InvalidArgumentError unless `value` is an embedding: an array (or typed array) of numbers. */
export function checkVector(parameter: string, value: unknown): asserts value is readonly number[] {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) {
    throw new InvalidArgumentError({ parameter, value, expected: "be an embedding (an array of numbers)" });
  }
}

/** Throws an InvalidArgumentError unless `value` is an array of embeddings (its first one checked as one). */
export function checkVectors(
  parameter: string,
  value: unknown,
): asserts value is readonly (readonly number[])[] {
  if (!Array.isArray(value)) {
    throw new InvalidArgumentError({ parameter, value, expected: "be an array of embeddings" });
  }
  if (value.length > 0) checkVector(`${parameter}[0]`, value[0]);
}
