import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { ImageNode } from "../schema/image-node.js";
import { SAME_TEXT_KEY, sourceName } from "../schema/node-source.js";
import type { NodeWithScore } from "../schema/text-node.js";
import { checkRetrieveOptions, type Retriever } from "./retriever.js";

/** Options of {@link collapseCopies}. */
export interface CollapseCopiesOptions {
  /**
   * How many nodes the retriever is asked for the second time, when copies left fewer than `topK` different texts
   * among its first `topK`. @default 8 × topK
   */
  maxTopK?: number;
}

/**
 * A retriever whose `topK` nodes all have different texts: a node whose text is the same as a better-ranked one's
 * (the same file in several places: Debian ships one changelog in each of a library's packages; a vendored copy, a
 * LICENSE) is left out, and the kept node lists where the copies are in `metadata.same_text_in` ({@link SAME_TEXT_KEY},
 * hidden from the model). `retrieverFor(k)` gives the retriever of the k best; when copies leave fewer than `topK`
 * different texts, it is asked once more, for `maxTopK`. Without copies the nodes are those of
 * `retrieverFor(topK)`, unchanged. Images are never merged (two pictures may share a caption).
 *
 * Deliberate difference from LlamaIndex, which returns every copy: on Debian's /usr/share/doc, three of the four
 * sources of "What changed in gnupg 2.2.40?" were one changelog in three packages, and all four of a question on
 * Boost's licence one copyright file.
 * @throws InvalidArgumentError when `topK` or `maxTopK` is not a whole number ≥ 1, or `maxTopK` < `topK`.
 */
export function collapseCopies(
  retrieverFor: (topK: number) => Retriever,
  topK: number,
  { maxTopK = topK * 8 }: CollapseCopiesOptions = {},
): Retriever {
  if (typeof retrieverFor !== "function") {
    throw new InvalidArgumentError({
      parameter: "retrieverFor",
      value: retrieverFor,
      expected: "be a function from a number of nodes to a Retriever",
      hint: "Pass (k) => index.asRetriever({ similarityTopK: k }).",
    });
  }
  checkInteger("topK", topK, 1);
  checkInteger("maxTopK", maxTopK, topK);
  return {
    async retrieve(options) {
      checkRetrieveOptions(options);
      // At most two retrievals: each scores every posting of the query's terms again, whatever k is (doubling k
      // until enough took the bench's 10^6-chunk ask, whose ten near-copies of one corpus share chunks, 51 -> 139 ms).
      const nodes = await retrieverFor(topK).retrieve(options);
      const distinct = withoutCopies(nodes);
      if (distinct.length >= topK || nodes.length < topK || maxTopK === topK) return distinct;
      return withoutCopies(await retrieverFor(maxTopK).retrieve(options)).slice(0, topK);
    },
  };
}

/**
 * Whether `found` comes from a smaller file (`file_size`) than `held`, whose text it has: the more particular place
 * of a text a large file repeats, such as Node's API page `cli.html` beside `all.html`, every page in one. (The two
 * score a little apart: the index weighs each chunk with its file's name and title.)
 */
function isSmallerFile(found: NodeWithScore, held: NodeWithScore): boolean {
  const size = found.node.metadata.file_size;
  const heldSize = held.node.metadata.file_size;
  return typeof size === "number" && typeof heldSize === "number" && size < heldSize;
}

/**
 * `nodes` without those whose text another has: of copies, the one from the smallest file is kept (the first when
 * sizes are equal or unknown), with its own score, and the kept ones list where the copies are.
 */
function withoutCopies(nodes: readonly NodeWithScore[]): NodeWithScore[] {
  const kept: NodeWithScore[] = [];
  const byText = new Map<string, { at: number; copies: string[] }>();
  let moved = false;
  for (const found of nodes) {
    if (ImageNode.isInstance(found.node)) {
      kept.push(found);
      continue;
    }
    const first = byText.get(found.node.text);
    if (!first) {
      byText.set(found.node.text, { at: kept.length, copies: [] });
      kept.push(found);
      continue;
    }
    const name = sourceName(found.node);
    const held = kept[first.at] as NodeWithScore;
    if (isSmallerFile(found, held)) {
      // The same text from a smaller file: that page is named, the larger one listed as a copy.
      kept[first.at] = found;
      moved = true;
      const previous = sourceName(held.node);
      first.copies = first.copies.filter((copy) => copy !== name);
      if (previous !== name && !first.copies.includes(previous)) first.copies.push(previous);
      continue;
    }
    if (name !== sourceName(held.node) && !first.copies.includes(name)) first.copies.push(name);
  }
  for (const { at, copies } of byText.values()) {
    if (copies.length === 0) continue;
    const { node, score } = kept[at] as NodeWithScore;
    const hidden = (keys: string[]) => (keys.includes(SAME_TEXT_KEY) ? keys : [...keys, SAME_TEXT_KEY]);
    kept[at] = {
      node: node.with({
        metadata: { ...node.metadata, [SAME_TEXT_KEY]: copies },
        excludedLlmMetadataKeys: hidden(node.excludedLlmMetadataKeys),
        excludedEmbedMetadataKeys: hidden(node.excludedEmbedMetadataKeys),
      }),
      ...(score === undefined ? {} : { score }),
    };
  }
  // A copy that took a place scores as itself: the places follow the scores again (a stable sort).
  if (moved) kept.sort((left, right) => (right.score ?? 0) - (left.score ?? 0));
  return kept;
}
