// Retrieval quality of one question, by file (or chunk id): pure functions over the ranked list, so the bench,
// the CLI and a caller's own loop all score the same way.

/** One retrieved chunk as the retrieval metrics see it: its node id and the file it came from. */
export interface RetrievedItem {
  /** The chunk's node id. */
  id: string;
  /** The chunk's `metadata.file_path`, when it has one. */
  filePath?: string | undefined;
  /**
   * The files whose text the chunk stands for (`metadata.same_text_in`: copies `collapseCopies` left out of the
   * ranking, the same text or another format's of it): a relevant file found there is found.
   */
  copies?: readonly string[] | undefined;
}

/** Retrieval metrics of one question, each between 0 and 1. */
export interface RetrievalScores {
  /** 1 when a relevant file (or chunk) is among the first `k` retrieved, else 0 (the bench's Recall@k). */
  hit: number;
  /** 1 / the 1-based rank of the first relevant chunk within the first `k`, 0 when there is none. */
  reciprocalRank: number;
  /** Binary-relevance nDCG@k: each relevant entry is credited once, at its first chunk. */
  ndcg: number;
  /** Share of the first `k` retrieved chunks that are relevant (0 when nothing was retrieved). */
  precision: number;
  /** Share of the relevant entries found among the first `k` chunks. */
  recall: number;
  /** The 1-based rank of the first relevant chunk within the first `k`, or null. */
  firstRelevantRank: number | null;
}

/**
 * Whether a chunk answers to a relevant entry: its node id is the entry, or its file path (or a copy's: `copies`) is
 * the entry or ends with `/` + the entry. So `"README.md"` matches every `…/README.md`, as the bench's basename rule
 * does, and `"docs/cli.md"` matches only files under a `docs` folder. Backslashes count as `/`.
 */
export function matchesRelevant(item: RetrievedItem, relevant: string): boolean {
  if (item.id === relevant) return true;
  if (relevant === "") return false;
  const entry = relevant.replace(/\\/g, "/");
  const matches = (file: string) => {
    const path = file.replace(/\\/g, "/");
    return path === entry || path.endsWith(`/${entry}`);
  };
  return (item.filePath !== undefined && matches(item.filePath)) || (item.copies?.some(matches) ?? false);
}

/**
 * Scores the first `k` retrieved chunks against the relevant files or chunk ids.
 * @example retrievalScores({ retrieved: [{ id: "n1", filePath: "/docs/a.md" }], relevant: ["a.md"], k: 4 }).hit // 1
 */
export function retrievalScores({
  retrieved,
  relevant,
  k,
}: {
  /** The chunks as retrieved, best first. */
  retrieved: readonly RetrievedItem[];
  /** File paths (or path suffixes) and chunk ids that answer the question. Must not be empty. */
  relevant: readonly string[];
  /** How many of the first chunks count. */
  k: number;
}): RetrievalScores {
  const top = retrieved.slice(0, k);
  const credited = new Set<number>();
  let dcg = 0;
  let relevantChunks = 0;
  let firstRelevantRank: number | null = null;
  for (const [position, item] of top.entries()) {
    const matched = relevant.flatMap((entry, index) => (matchesRelevant(item, entry) ? [index] : []));
    if (matched.length === 0) continue;
    relevantChunks += 1;
    firstRelevantRank ??= position + 1;
    const fresh = matched.find((index) => !credited.has(index));
    if (fresh === undefined) continue;
    credited.add(fresh);
    dcg += 1 / Math.log2(position + 2);
  }
  let ideal = 0;
  for (let position = 0; position < Math.min(relevant.length, k); position++) {
    ideal += 1 / Math.log2(position + 2);
  }
  const found = relevant.filter((entry) => top.some((item) => matchesRelevant(item, entry))).length;
  return {
    hit: firstRelevantRank === null ? 0 : 1,
    reciprocalRank: firstRelevantRank === null ? 0 : 1 / firstRelevantRank,
    ndcg: ideal === 0 ? 0 : dcg / ideal,
    precision: top.length === 0 ? 0 : relevantChunks / top.length,
    recall: relevant.length === 0 ? 0 : found / relevant.length,
    firstRelevantRank,
  };
}
