import { lexicalTokens } from "./lexical-tokens.js";

/** Options of {@link termProximity}. */
export interface TermProximityOptions {
  /** How far apart (in terms; stop words are not terms) a pair's second term may follow its first. @default 2 */
  window?: number;
  /** Saturation of a pair's count, as BM25's `k1` saturates a term's. @default 1.2 */
  k1?: number;
}

/**
 * How much of the query's wording a text keeps together: each pair of consecutive query terms (`tip current`,
 * `current branch` for "the tip of the current branch") found in the text in the query's order, the second at most
 * `window` terms after the first, is scored as BM25 scores a term: its count saturated,
 * `count × (k1 + 1) / (count + k1)`, times the lower idf of its two terms. This is the ordered-window feature of
 * Metzler and Croft's sequential dependence model ("A Markov random field model for term dependencies", SIGIR 2005)
 * in BM25's form; the window of 2 skips one word ("current local branch"). Terms are `lexicalTokens`' (stop words
 * dropped, plurals stemmed), so the text is read the way the index read it, and a camelCase or dotted name in both
 * the query and the text matches as a run of adjacent parts.
 *
 * Linear in the text (one pass, at most `window` recent matches kept).
 * @param queryTerms the query's terms in order (`lexicalTokens(query)`)
 * @param idf each query term's idf; a term missing from it (in no document) pairs with nothing
 * @param text the candidate chunk's text
 */
export function termProximity(
  queryTerms: readonly string[],
  idf: ReadonlyMap<string, number>,
  text: string,
  { window = 2, k1 = 1.2 }: TermProximityOptions = {},
): number {
  // second term → the first terms it follows in the query
  const follows = new Map<string, Set<string>>();
  for (let index = 1; index < queryTerms.length; index++) {
    const first = queryTerms[index - 1] as string;
    const second = queryTerms[index] as string;
    if (first === second || !idf.has(first) || !idf.has(second)) continue;
    let firsts = follows.get(second);
    if (!firsts) follows.set(second, (firsts = new Set()));
    firsts.add(first);
  }
  if (follows.size === 0) return 0;
  const counts = new Map<string, number>();
  const recent: { term: string; at: number }[] = [];
  let at = 0;
  for (const term of lexicalTokens(text)) {
    at++;
    if (!idf.has(term)) continue;
    while (recent.length > 0 && at - (recent[0] as { at: number }).at > window) recent.shift();
    const firsts = follows.get(term);
    if (firsts) {
      for (const earlier of recent) {
        if (!firsts.has(earlier.term)) continue;
        const pair = `${earlier.term}\u0000${term}`;
        counts.set(pair, (counts.get(pair) ?? 0) + 1);
      }
    }
    recent.push({ term, at });
  }
  let score = 0;
  for (const [pair, count] of counts) {
    const [first, second] = pair.split("\u0000") as [string, string];
    const weight = Math.min(idf.get(first) as number, idf.get(second) as number);
    score += (weight * count * (k1 + 1)) / (count + k1);
  }
  return score;
}
