import { checkInteger } from "../errors/check-integer.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { ImageNode } from "../schema/image-node.js";
import { getNodeLocation } from "../schema/node-location.js";
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
 * LICENSE), or mostly the same in another format (one manual as PDF, HTML and plain text: {@link NEAR_COPY_SHARE}),
 * or the same but for a few words in another file of its format ({@link SAME_FORMAT_COPY_SHARE}), is left out, and the kept node lists where the copies are in `metadata.same_text_in` ({@link SAME_TEXT_KEY},
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
 * Whether `found` names the text it shares with `held` better: it comes from a smaller file (`file_size`), the more
 * particular place of a text a large file repeats, such as Node's API page `cli.html` beside `all.html`, every page in
 * one (the two score a little apart: the index weighs each chunk with its file's name and title); or, when the sizes
 * cannot be compared (a compressed file), its place names headings and `held`'s does not: debian-reference's gzipped
 * text has line numbers only, its PDF the chapter and section.
 */
function namesBetter(found: NodeWithScore, held: NodeWithScore): boolean {
  const size = textFileSize(found.node);
  const heldSize = textFileSize(held.node);
  if (size !== undefined && heldSize !== undefined) return size < heldSize;
  return headed(found.node) && !headed(held.node);
}

function headed(node: NodeWithScore["node"]): boolean {
  return (getNodeLocation(node)?.headingPath?.length ?? 0) > 0;
}

/** A node's file size (`file_size`), unless the file is compressed (its size then says little of its text's). */
function textFileSize(node: NodeWithScore["node"]): number | undefined {
  const { file_size: size, compression } = node.metadata;
  return typeof size === "number" && compression === undefined ? size : undefined;
}

/**
 * The share of a lower-ranked node's word 5-grams (or of the held node's, when that is shorter) that the other holds,
 * from which it counts as a copy of a node in another format: the same document published as PDF, HTML and plain
 * text. Over Debian's debian-reference (one book as `debian-reference.en.pdf`, `.txt.gz` and a page per chapter),
 * the three forms of one section share 66–100% of the shorter's 5-grams, different sections 0–3%; the three took
 * three of the four places of "How do I set the system locale?".
 */
const NEAR_COPY_SHARE = 0.5;
/**
 * The share from which a node of another file in the same format counts as a copy: the same page but for a few
 * words (a generated label, a date). The Debian Administrator's Handbook ships each untranslated page in every
 * language's folder, English but for "Example 8.1" (`Příklad`, `예`, `Eksempel`): 98% of their 5-grams shared, and
 * four of them were the four sources of an English question. Two versions of a page that differ in more than one
 * 5-gram in twenty stay two sources (LlamaIndex keeps every copy); so do the bench's large10 copies (one word in 50
 * of four letters or more changed per copy: 93–94% shared), which stand for ten times the text, not for copies.
 */
const SAME_FORMAT_COPY_SHARE = 0.95;
/** Words that may differ between two short texts of one format that are copies, whatever the share they leave. */
const SAME_FORMAT_SPARE_WORDS = 2;
/** Words per shingle: long enough that two different passages rarely share one. */
const SHINGLE_WORDS = 5;
/** Below this many shingles a text is too short to call a copy by its shingles (only the same text is one). */
const MIN_SHINGLES = 8;

/** One node placed by {@link withoutCopies}: its format, and its shingles once a comparison needed them. */
interface Member {
  node: NodeWithScore["node"];
  format: string;
  shingles?: Set<number>;
}

/** A kept node's place, the files of its copies, and every node placed with it (itself first). */
interface CopyGroup {
  at: number;
  copies: string[];
  members: Member[];
}

/**
 * `nodes` without those whose text another has, or most of it in another format ({@link NEAR_COPY_SHARE}), or all
 * but a few words of it in another file of the same format ({@link SAME_FORMAT_COPY_SHARE}): of copies, the one that
 * names its place best is kept ({@link namesBetter}: a chapter's page before the whole book's PDF, the PDF's pages
 * under their headings before a gzipped text's lines; the first when nothing tells them apart), with its own score, and the kept ones list where the copies are. Chunks of one file are never copies by
 * their shingles (the splitter's overlap); one text twice in one file is kept once, listing no copy.
 */
function withoutCopies(nodes: readonly NodeWithScore[]): NodeWithScore[] {
  const kept: NodeWithScore[] = [];
  const byText = new Map<string, CopyGroup>();
  const groups: CopyGroup[] = [];
  // Where each file first ranked: the copies are listed best ranked first, whichever was named.
  const firstRank = new Map<string, number>();
  let moved = false;
  for (const found of nodes) {
    if (ImageNode.isInstance(found.node)) {
      kept.push(found);
      continue;
    }
    if (!firstRank.has(sourceName(found.node))) firstRank.set(sourceName(found.node), firstRank.size);
    const member: Member = { node: found.node, format: formatOf(found.node) };
    const group = byText.get(found.node.text) ?? nearCopyGroup(groups, member);
    if (!group) {
      const placed = { at: kept.length, copies: [], members: [member] };
      byText.set(found.node.text, placed);
      groups.push(placed);
      kept.push(found);
      continue;
    }
    group.members.push(member);
    if (!byText.has(found.node.text)) byText.set(found.node.text, group);
    const name = sourceName(found.node);
    const held = kept[group.at] as NodeWithScore;
    if (namesBetter(found, held)) {
      // The same text from a smaller file (or under headings): that place is named, the other listed as a copy.
      kept[group.at] = found;
      moved = true;
      const previous = sourceName(held.node);
      group.copies = group.copies.filter((copy) => copy !== name);
      if (previous !== name && !group.copies.includes(previous)) group.copies.push(previous);
      continue;
    }
    if (name !== sourceName(held.node) && !group.copies.includes(name)) group.copies.push(name);
  }
  for (const { at, copies } of groups) {
    if (copies.length === 0) continue;
    copies.sort((left, right) => (firstRank.get(left) ?? 0) - (firstRank.get(right) ?? 0));
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

/** The format a reader gave a node (a gzipped file's inner one), or "" when none is known. */
function formatOf(node: NodeWithScore["node"]): string {
  const { inner_format: inner, format } = node.metadata;
  if (typeof inner === "string" && inner !== "") return inner;
  return typeof format === "string" ? format : "";
}

/**
 * The group of which `member` is a copy: one holding a node of another file that shares {@link NEAR_COPY_SHARE} of
 * the shorter one's shingles in another format (when the group holds no node of `member`'s format yet: a group is
 * one passage in several formats, so two versions of an HTML page do not meet through its PDF), or
 * {@link SAME_FORMAT_COPY_SHARE} in the same format (or all but the shingles of {@link SAME_FORMAT_SPARE_WORDS} words:
 * one word changed costs a short text more than 5% of its shingles).
 */
function nearCopyGroup(groups: readonly CopyGroup[], member: Member): CopyGroup | undefined {
  if (member.format === "") return undefined;
  const file = sourceName(member.node);
  for (const group of groups) {
    const holdsFormat = group.members.some((other) => other.format === member.format);
    for (const other of group.members) {
      const sameFormat = other.format === member.format;
      if (other.format === "" || (!sameFormat && holdsFormat) || sourceName(other.node) === file) continue;
      member.shingles ??= shinglesOf(member.node.text);
      other.shingles ??= shinglesOf(other.node.text);
      const copied = sameFormat
        ? shares(
            member.shingles,
            other.shingles,
            SAME_FORMAT_COPY_SHARE,
            SAME_FORMAT_SPARE_WORDS * SHINGLE_WORDS,
          )
        : shares(member.shingles, other.shingles, NEAR_COPY_SHARE);
      if (copied) return group;
    }
  }
  return undefined;
}

/**
 * Whether the shorter of two shingle sets (of at least {@link MIN_SHINGLES}) has `share` of its own in the other, or
 * misses at most `spare` of them.
 */
function shares(left: Set<number>, right: Set<number>, share: number, spare = 0): boolean {
  const [small, large] = left.size <= right.size ? [left, right] : [right, left];
  if (small.size < MIN_SHINGLES) return false;
  let shared = 0;
  for (const shingle of small) if (large.has(shingle)) shared++;
  return small.size - shared <= Math.max((1 - share) * small.size, spare);
}

/**
 * The hashes of a text's runs of {@link SHINGLE_WORDS} words, words being letters and digits, case and Unicode
 * forms folded: a PDF's, an HTML page's and a plain text's forms of one passage differ in markup, quotes and line
 * breaks, not in their words.
 */
function shinglesOf(text: string): Set<number> {
  const words: number[] = [];
  for (const [word] of text
    .normalize("NFKC")
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}]+/gu)) {
    let hash = 0x811c9dc5;
    for (let index = 0; index < word.length; index++)
      hash = Math.imul(hash ^ word.charCodeAt(index), 0x01000193);
    words.push(hash);
  }
  const shingles = new Set<number>();
  for (let start = 0; start + SHINGLE_WORDS <= words.length; start++) {
    let hash = 0;
    for (let offset = 0; offset < SHINGLE_WORDS; offset++)
      hash = Math.imul(hash ^ (words[start + offset] as number), 0x9e3779b1) >>> 0;
    shingles.add(hash);
  }
  return shingles;
}
