import { LexicalIndex } from "../retrieval/lexical-index.js";

// A node's metadata line (`file_path: docs/a.md`), as `getContent(MetadataMode.LLM)` puts it before each node's text.
export const METADATA_LINE = /^[a-z][a-z0-9]*_[a-z0-9_]*: \S+$/;

// A file whose text matches the query less than this share of the best-matching file's BM25 score is not quoted;
// above it, its passages keep (share)^FILE_WEIGHT_POWER of their score. Measured on the bench's labelled questions
// (bench/quality.mjs): it is what takes quotes away from retrieved files the question does not concern.
const FILE_MIN_SHARE = 0.5;
const FILE_WEIGHT_POWER = 0.5;

/** Where each offset of a context lies: the rank of its file, and each file's metadata lines. @internal */
export interface ContextFiles {
  /** The rank of the file (best first, from `first`) the chunk holding `offset` comes from. */
  rankOf(offset: number): number;
  /** Per file rank: its metadata lines (`file_path: docs/a.md`), or "" when the context has none. */
  labels: ReadonlyMap<number, string>;
  /**
   * Whether `offset` lies in a chunk's metadata header (its metadata lines up to the blank line before its text,
   * `title: …` included): what a node's metadata says, not what its document says, so nothing to quote.
   */
  inHeader(offset: number): boolean;
}

/**
 * Finds the retrieved chunks in a context and the file each comes from. The context is the retrieved nodes joined
 * in retrieval order, each node with metadata starting with its metadata lines after a blank line; chunks with the
 * same metadata lines are the same file (a citation piece, or another chunk of a file already seen), which keeps the
 * rank of its first chunk. Without such lines everything is one file.
 * @internal
 */
export function contextFiles(text: string, first: number): ContextFiles {
  const starts: { offset: number; label: string }[] = [];
  // Each header runs from its first metadata line to the blank line after it (one never closed by a blank line is
  // metadata with no text after it, and stays quotable).
  const headers: { start: number; end: number }[] = [];
  let header: { start: number; end: number } | undefined;
  let leading = "";
  let blankBefore = false;
  let textBefore = false;
  let inMetadata = false;
  let offset = 0;
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    const metadata = METADATA_LINE.test(trimmed);
    // A chunk starts at the first of its metadata lines; the ones after it (`page_count: 3` under `file_path: …`)
    // belong to the same header.
    if (metadata && blankBefore && textBefore && !inMetadata) starts.push({ offset, label: "" });
    if (header === undefined && metadata && (!textBefore || blankBefore))
      header = { start: offset, end: offset };
    if (header !== undefined) {
      if (trimmed === "") {
        headers.push(header);
        header = undefined;
      } else header.end = offset + line.length;
    }
    inMetadata = metadata && (inMetadata || !textBefore || (blankBefore && textBefore));
    if (inMetadata) {
      const last = starts[starts.length - 1];
      if (last) last.label += `${trimmed}\n`;
      else leading += `${trimmed}\n`;
    }
    blankBefore = trimmed === "" || (blankBefore && metadata);
    textBefore ||= trimmed !== "";
    offset += line.length + 1;
  }
  const labels = new Map<number, string>([[first, leading]]);
  const rankByLabel = new Map<string, number>(leading === "" ? [] : [[leading, first]]);
  const ranks = starts.map(({ label }) => {
    let rank = rankByLabel.get(label);
    if (rank === undefined) {
      rank = first + labels.size;
      rankByLabel.set(label, rank);
      labels.set(rank, label);
    }
    return rank;
  });
  return {
    rankOf: (at) => {
      let rank = first;
      for (const [index, start] of starts.entries()) if (start.offset <= at) rank = ranks[index] as number;
      return rank;
    },
    labels,
    inHeader: (at) => headers.some(({ start, end }) => start <= at && at < end),
  };
}

/** What {@link fileWeights} reads of a candidate passage. @internal */
export interface RankedPassage {
  /** 0 for the answer so far (weight 1), 1 for the context. */
  source: number;
  /** Its file's rank, from {@link ContextFiles.rankOf}. */
  rank: number;
  heading: string;
  text: string;
}

/**
 * How much the query concerns each retrieved file: BM25 of the query over each file's text as the context holds it
 * (its passages with their headings, and its metadata lines with the path cut into words, `express/History.md` →
 * `express History md`), relative to the best file. A file under {@link FILE_MIN_SHARE} of the best weighs 0 (it is
 * not quoted); the others weigh share^{@link FILE_WEIGHT_POWER}. With one file, or no query, every weight is 1.
 * Retrieval ranks chunks; this asks which of the retrieved files answers, so that an answer does not quote (and
 * cite) a neighbouring file that merely shares a few of the query's words.
 * @internal
 */
export function fileWeights(
  passages: readonly RankedPassage[],
  labels: ReadonlyMap<number, string>,
  query: string,
): (passage: RankedPassage) => number {
  const texts = new Map<number, string>();
  for (const passage of passages) {
    if (passage.source === 0) continue;
    if (!texts.has(passage.rank)) {
      const label = labels.get(passage.rank) ?? "";
      texts.set(passage.rank, `${label}${label.replace(/[^\p{L}\p{N}]+/gu, " ")}\n`);
    }
    texts.set(passage.rank, `${texts.get(passage.rank)}${passage.heading}\n${passage.text}\n`);
  }
  if (query.trim() === "" || texts.size < 2) return () => 1;
  const index = new LexicalIndex();
  for (const [rank, text] of texts) index.add(String(rank), text);
  const scores = new Map(index.search(query, { topK: texts.size }).map((hit) => [Number(hit.id), hit.score]));
  const best = Math.max(0, ...scores.values());
  if (best === 0) return () => 1;
  return (passage) => {
    if (passage.source === 0) return 1;
    const share = (scores.get(passage.rank) ?? 0) / best;
    return share < FILE_MIN_SHARE ? 0 : share ** FILE_WEIGHT_POWER;
  };
}
