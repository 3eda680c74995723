/** One sentence and the piece it cites, as a judge reads them (markers removed from the sentence). */
export interface JudgedPair {
  sentence: string;
  source: string;
}

/** A judge's verdict on one citation. */
export interface CitationVerdict {
  /** True when the judge said the piece supports the sentence, false when not, null when it could not tell. */
  supported: boolean | null;
  /** Why there is no verdict: an unreadable reply or a failed call. */
  error?: string;
}

/** Model calls and tokens a judge spent on one answer's citations. */
export interface CitationJudgeUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * Decides, per citation, whether the cited piece supports the sentence: the contract `CitationQueryEngine`'s
 * `judge` option takes. `llmCitationJudge` (LlamaIndex's faithfulness prompt, one call per distinct pair, a few
 * at a time) is one; a plain object with this method is another.
 */
export interface CitationJudge {
  /** One verdict per pair, in order, and what it cost. A failed pair is a verdict with `supported: null`. */
  judgeCitations(
    pairs: readonly JudgedPair[],
    options: { signal?: AbortSignal | undefined },
  ): Promise<{ verdicts: CitationVerdict[]; usage: CitationJudgeUsage }>;
}
