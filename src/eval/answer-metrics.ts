// Offline answer metrics: pure functions of the answer text, so no model is needed to compute them.

/** Lower case, every run of whitespace one space: the bench's rule for "the answer holds the phrase". */
export function normalizeForPhrase(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ");
}

/**
 * Whether `answer` holds the expected phrase, case and whitespace ignored (exactly the bench's rule). A long
 * answer holds more phrases by chance, which is why the answer's length is always reported beside this.
 * @example holdsPhrase({ answer: "The DEFAULT\nmode is compact.", phrase: "default mode" }) // true
 */
export function holdsPhrase({ answer, phrase }: { answer: string; phrase: string }): boolean {
  return normalizeForPhrase(answer).includes(normalizeForPhrase(phrase));
}

const ARTICLES = new Set(["a", "an", "the"]);

/** SQuAD's answer normalization: lower case, no punctuation, no articles, split on whitespace. */
export function answerTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, " ")
    .split(/\s+/)
    .filter((token) => token !== "" && !ARTICLES.has(token));
}

/**
 * Token F1 of an answer against a reference answer (SQuAD's metric): the harmonic mean of the share of the
 * answer's tokens found in the reference and the share of the reference's tokens found in the answer, each token
 * counted as often as it occurs in both. Two empty texts score 1; one empty text scores 0.
 * @example tokenF1({ answer: "compact mode", reference: "the compact mode" }) // 1
 */
export function tokenF1({ answer, reference }: { answer: string; reference: string }): number {
  const predicted = answerTokens(answer);
  const expected = answerTokens(reference);
  if (predicted.length === 0 || expected.length === 0) return predicted.length === expected.length ? 1 : 0;
  const left = new Map<string, number>();
  for (const token of expected) left.set(token, (left.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predicted) {
    const remaining = left.get(token) ?? 0;
    if (remaining === 0) continue;
    common += 1;
    left.set(token, remaining - 1);
  }
  if (common === 0) return 0;
  const precision = common / predicted.length;
  const recall = common / expected.length;
  return (2 * precision * recall) / (precision + recall);
}
