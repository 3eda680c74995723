import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { answerSentences } from "./answer-sentences.js";
import type { CitationJudge, CitationJudgeUsage } from "./citation-judge.js";
import { type CitationMarker, MARKER, parseCitationMarkers } from "./citation-markers.js";
import type { CitationSource } from "./citation-source.js";
import { type CitationSupport, scoreSupport } from "./citation-support.js";
import { cleanCitationText, type InvalidCitation } from "./citation-text-cleaner.js";

/** One source number named by a marker in one sentence of the shown answer. */
export interface Citation {
  /** The marker as shown: `[1, 2]` (one marker naming two sources gives two citations). */
  marker: string;
  /** Offset of the marker in the shown text. */
  offset: number;
  sourceNumber: number;
  source: CitationSource;
  /** The sentence that carries the marker, markers included. */
  sentence: string;
  support: CitationSupport;
}

/** A sentence of the answer that cites nothing. */
export interface UncitedSentence {
  sentence: string;
  start: number;
  end: number;
}

/** Everything known about an answer's citations. */
export interface CitationReport {
  /** The numbered pieces the model was shown. */
  sources: CitationSource[];
  /** Every valid citation, in the order of the text. */
  citations: Citation[];
  /** Markers naming a source that does not exist; removed from the shown text. */
  invalid: InvalidCitation[];
  /** Citations whose source does not support their sentence (see {@link CitationSupport}). */
  unsupported: Citation[];
  /** Sentences with no marker. */
  uncited: UncitedSentence[];
  /** What the LLM judge spent, when one was given. */
  judgeUsage?: CitationJudgeUsage;
}

/** Options of {@link checkCitations}. */
export interface CheckCitationsOptions {
  /** The answer as the model wrote it. */
  text: string;
  /** The numbered sources, `sources[i].number === i + 1`. */
  sources: readonly CitationSource[];
  /** Adds a cosine score to each citation. */
  embedModel?: Embedder | undefined;
  /** Share of a sentence's content terms the cited piece must hold. @default 0.5 */
  supportThreshold?: number | undefined;
  /** Cosine similarity that counts as support when the lexical share falls short. @default 0.8 */
  cosineThreshold?: number | undefined;
  /** Asks a model whether each cited piece supports its sentence; its verdict decides `unsupported`. */
  judge?: CitationJudge | undefined;
  /**
   * The markers in `text`, when the caller placed them itself (`citeVerbatimQuoteMarkers`): only these are
   * resolved, and the text is shown as given (bracketed numbers elsewhere in it are quoted text, not markers).
   */
  markers?: readonly CitationMarker[] | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Parses, resolves and checks the citations of an answer: invalid markers removed (the returned `text` is what to
 * show), every marker resolved to its source, every cited sentence scored against each source it cites, and
 * sentences without a marker listed.
 * @throws InvalidArgumentError for a non-string text, sources not numbered 1…n, or a threshold outside 0…1
 */
export async function checkCitations({
  text,
  sources,
  embedModel,
  supportThreshold,
  cosineThreshold,
  judge,
  markers: placed,
  signal,
}: CheckCitationsOptions): Promise<{ text: string; report: CitationReport }> {
  if (typeof text !== "string") {
    throw new InvalidArgumentError({
      parameter: "text",
      value: text,
      expected: "be the answer text (a string)",
    });
  }
  for (const [index, source] of (sources ?? []).entries()) {
    if (source?.number !== index + 1) {
      throw new InvalidArgumentError({
        parameter: `sources[${index}].number`,
        value: source?.number,
        expected: `be ${index + 1}: sources are numbered from 1 in order`,
        hint: "Pass the sources createCitationNodes returned, unchanged.",
      });
    }
  }
  for (const [name, value] of [
    ["supportThreshold", supportThreshold],
    ["cosineThreshold", cosineThreshold],
  ] as const) {
    if (value !== undefined && !(typeof value === "number" && value >= 0 && value <= 1)) {
      throw new InvalidArgumentError({ parameter: name, value, expected: "be a number from 0 to 1" });
    }
  }
  const cleaned = placed ? { text, invalid: [] } : cleanCitationText({ text, sourceCount: sources.length });
  const shown = cleaned.text;
  const markers = placed
    ? [...placed].filter((marker) => shown.slice(marker.start, marker.end) === marker.text)
    : parseCitationMarkers(shown);
  const found: Omit<Citation, "support">[] = [];
  const uncited: UncitedSentence[] = [];
  // Sentences and markers are both in text order: one pass over each.
  let next = 0;
  for (const sentence of answerSentences(shown)) {
    while (next < markers.length && (markers[next]?.start ?? 0) < sentence.start) next++;
    const inside: typeof markers = [];
    while (next < markers.length && (markers[next]?.end ?? 0) <= sentence.end)
      inside.push(markers[next++] as (typeof markers)[number]);
    if (inside.length === 0)
      uncited.push({ sentence: sentence.text, start: sentence.start, end: sentence.end });
    for (const marker of inside) {
      for (const number of new Set(marker.numbers)) {
        const source = sources[number - 1];
        if (source)
          found.push({
            marker: marker.text,
            offset: marker.start,
            sourceNumber: number,
            source,
            sentence: sentence.text,
          });
      }
    }
  }
  if (judge !== undefined && typeof judge?.judgeCitations !== "function") {
    throw new InvalidArgumentError({
      parameter: "judge",
      value: judge,
      expected: "be a CitationJudge (an object with judgeCitations(pairs, { signal }))",
      hint: "llmCitationJudge({ judge: llm }) makes one from a model.",
    });
  }
  let judgeUsage: CitationJudgeUsage | undefined;
  const supports = await scoreSupport({
    pairs: found.map((citation) => ({
      // Markers out, with the space before them: "red [2]." is judged and scored as "red.".
      sentence: citation.sentence.replace(new RegExp(`\\s*(?:${MARKER.source})`, "g"), ""),
      source: citation.source.text,
    })),
    embedModel,
    threshold: supportThreshold,
    cosineThreshold,
    signal,
    judge,
    onJudgeUsage: (usage) => {
      judgeUsage = usage;
    },
  });
  const citations = found.map((citation, index) => ({
    ...citation,
    support: supports[index] as CitationSupport,
  }));
  return {
    text: shown,
    report: {
      sources: [...sources],
      citations,
      invalid: cleaned.invalid,
      unsupported: citations.filter((citation) => !citation.support.supported),
      uncited,
      ...(judgeUsage ? { judgeUsage } : {}),
    },
  };
}
