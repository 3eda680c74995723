import { similarity } from "../embedding/similarity.js";
import type { Embedder } from "../embedding/types.js";
import { lexicalTokens } from "../lexical/lexical-tokens.js";

/** How well the source a sentence cites supports it. */
export interface CitationSupport {
  /**
   * Share of the sentence's distinct content terms (the lexical index's analyzer: stop words dropped, stemmed,
   * CJK bigrams) that occur in the cited piece, 0 to 1; 1 for a sentence with no content term.
   */
  lexical: number;
  /** Cosine similarity of the sentence's and the piece's embeddings, when an `embedModel` was given. */
  cosine?: number;
  /** False when `lexical` is under the threshold and `cosine` (if any) is under its own. */
  supported: boolean;
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
}: {
  pairs: readonly SupportPair[];
  /** Adds a cosine score; a paraphrase the lexical share misses can pass on it. */
  embedModel?: Embedder | undefined;
  /** @default 0.5 */
  threshold?: number | undefined;
  /** @default 0.8 */
  cosineThreshold?: number | undefined;
  signal?: AbortSignal | undefined;
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
  return pairs.map((_, index) => {
    const lexicalShare = lexical[index] ?? 0;
    const cosine = cosines?.[index];
    const supported = lexicalShare >= threshold || (cosine !== undefined && cosine >= cosineThreshold);
    return cosine === undefined
      ? { lexical: lexicalShare, supported }
      : { lexical: lexicalShare, cosine, supported };
  });
}
