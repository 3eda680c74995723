import type { CitationReport } from "./check-citations.js";
import type { CitationJudgeUsage } from "./citation-judge.js";
import type { CitationLocation } from "./citation-source.js";
import type { CitationSupport } from "./citation-support.js";
import type { InvalidCitation } from "./citation-text-cleaner.js";

/** A {@link CitationReport} as `ask --json` and `batch --citations` write it: numbers for sources, no nodes. */
export interface CitationsJSON {
  sources: Array<{ number: number; nodeId: string; location: CitationLocation; text: string }>;
  citations: Array<{
    marker: string;
    offset: number;
    source: number;
    sentence: string;
    support: CitationSupport;
  }>;
  invalid: InvalidCitation[];
  unsupported: Array<{ source: number; sentence: string }>;
  uncited: Array<{ sentence: string; start: number; end: number }>;
  /** What the LLM judge spent, when there was one. */
  judgeUsage?: CitationJudgeUsage;
}

/** Every citation, invalid marker, unsupported citation and uncited sentence, sources by number. */
export function citationsToJSON(report: CitationReport): CitationsJSON {
  return {
    sources: report.sources.map((source) => ({
      number: source.number,
      nodeId: source.node.node.id,
      location: source.location,
      text: source.text,
    })),
    citations: report.citations.map((citation) => ({
      marker: citation.marker,
      offset: citation.offset,
      source: citation.sourceNumber,
      sentence: citation.sentence,
      support: citation.support,
    })),
    invalid: report.invalid,
    unsupported: report.unsupported.map((citation) => ({
      source: citation.sourceNumber,
      sentence: citation.sentence,
    })),
    uncited: report.uncited,
    ...(report.judgeUsage ? { judgeUsage: report.judgeUsage } : {}),
  };
}
