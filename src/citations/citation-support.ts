import { lexicalTokens } from "../analysis/lexical-tokens.js";
import { similarity } from "../embedding/similarity.js";
import type { Embedder } from "../embedding/types.js";
import type { CitationJudge, CitationJudgeUsage } from "./citation-judge.js";

/** How well the source a sentence cites supports it. */
export interface CitationSupport {
  /**
   * Share of the sentence's distinct content terms (the lexical index's analyzer: stop words dropped, stemmed,
   * CJK bigrams) that occur in the cited piece, 0 to 1; 1 for a sentence with no content term.
   */
  lexical: number;
  /** Cosine similarity of the sentence's and the piece's embeddings, when an `embedModel` was given. */
  cosine?: number;
  /**
   * The LLM judge's verdict, when a `judge` was given: true (YES), false (NO), or null when its reply could not
   * be read or the call failed (`judgeError` says which; `supported` then falls back to the scores).
   */
  judge?: boolean | null;
  /** Why the judge gave no verdict. */
  judgeError?: string;
  /**
   * The judge's verdict when it gave one; otherwise false when `lexical` is under the threshold and `cosine`
   * (if any) is under its own.
   */
  supported: boolean;
}

/** How a citation was scored, for people: `lexical 0.20, cosine 0.71, judge NO`. */
export function supportText(support: CitationSupport): string {
  const parts = [`lexical ${support.lexical.toFixed(2)}`];
  if (support.cosine !== undefined) parts.push(`cosine ${support.cosine.toFixed(2)}`);
  if (support.judge !== undefined)
    parts.push(`judge ${support.judge === null ? "?" : support.judge ? "YES" : "NO"}`);
  return parts.join(", ");
}

/** Default share of a sentence's content terms its cited piece must contain. */
export const DEFAULT_SUPPORT_THRESHOLD = 0.5;
/** Default cosine similarity that counts as support when the lexical share falls short. */
export const DEFAULT_COSINE_THRESHOLD = 0.8;

/** The lexical support share of `sentence` by `source` (markers should be removed from the sentence first). */
export function lexicalSupport({ sentence, source }: { sentence: string; source: string }): number {
  const terms = new Set(lexicalTokens(sentence));
  if (terms.size === 0) return 1;
  const available = new Set(lexicalTokens(source));
  let found = 0;
  for (const term of terms) if (available.has(term)) found++;
  return found / terms.size;
}

/** One sentence–source pair to score. */
export interface SupportPair {
  sentence: string;
  source: string;
}

/**
 * Scores sentence–source pairs: lexical always, cosine too with `embedModel` (one batched embedding call for
 * every distinct text).
 */
export async function scoreSupport({
  pairs,
  embedModel,
  threshold = DEFAULT_SUPPORT_THRESHOLD,
  cosineThreshold = DEFAULT_COSINE_THRESHOLD,
  signal,
  judge,
  onJudgeUsage,
}: {
  pairs: readonly SupportPair[];
  /** Adds a cosine score; a paraphrase the lexical share misses can pass on it. */
  embedModel?: Embedder | undefined;
  /** @default 0.5 */
  threshold?: number | undefined;
  /** @default 0.8 */
  cosineThreshold?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Asks a model, per pair, whether the piece supports the sentence; its verdict decides `supported`. */
  judge?: CitationJudge | undefined;
  /** Receives what the judge spent. */
  onJudgeUsage?: ((usage: CitationJudgeUsage) => void) | undefined;
}): Promise<CitationSupport[]> {
  const lexical = pairs.map((pair) => lexicalSupport(pair));
  let cosines: number[] | undefined;
  if (embedModel && pairs.length > 0) {
    const texts = [...new Set(pairs.flatMap((pair) => [pair.sentence, pair.source]))];
    const vectors = await embedModel.getTextEmbeddings(texts, signal ? { signal } : {});
    const byText = new Map(texts.map((text, index) => [text, vectors[index] ?? []]));
    cosines = pairs.map((pair) =>
      similarity(byText.get(pair.sentence) ?? [], byText.get(pair.source) ?? [], "cosine"),
    );
  }
  let verdicts: Awaited<ReturnType<CitationJudge["judgeCitations"]>>["verdicts"] | undefined;
  if (judge && pairs.length > 0) {
    const judged = await judge.judgeCitations(pairs, { signal });
    onJudgeUsage?.(judged.usage);
    verdicts = judged.verdicts;
  }
  return pairs.map((_, index) => {
    const lexicalShare = lexical[index] ?? 0;
    const cosine = cosines?.[index];
    const scored = lexicalShare >= threshold || (cosine !== undefined && cosine >= cosineThreshold);
    const support: CitationSupport = { lexical: lexicalShare, supported: scored };
    if (cosine !== undefined) support.cosine = cosine;
    if (verdicts) {
      // A judge that returned too few verdicts is a missing verdict for the rest, never a silent pass.
      const verdict = verdicts[index] ?? { supported: null, error: "the judge returned no verdict" };
      support.judge = verdict.supported;
      if (verdict.supported === null) support.judgeError = verdict.error ?? "no verdict";
      else support.supported = verdict.supported;
    }
    return support;
  });
}
