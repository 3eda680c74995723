import type { Span } from "@opentelemetry/api";
import type { RetrieverQueryEngineOptions } from "../query-engine/engine-options.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import type { SynthesisResponse } from "../synthesizer/types.js";
import type { CitationReport } from "./check-citations.js";
import { recordCitationCounts } from "./citation-span.js";

/** Resolves and checks the citations of a finished answer. */
export type FinishCitations = (
  response: SynthesisResponse,
  signal: AbortSignal | undefined,
) => Promise<SynthesisResponse & { citations: CitationReport }>;

/**
 * The query engine inside `CitationQueryEngine`: a `RetrieverQueryEngine` that checks the citations while its
 * `ragsynth.query` span is still open, so the checks (and an LLM judge's calls) nest under it and the span gets
 * the `ragsynth.citations.*` counts.
 */
export class CitingRetrieverQueryEngine extends RetrieverQueryEngine {
  private readonly finish: FinishCitations;

  constructor(options: RetrieverQueryEngineOptions, finish: FinishCitations) {
    super(options);
    this.finish = finish;
  }

  protected override async finishResponse(
    response: SynthesisResponse,
    span: Span,
    signal: AbortSignal | undefined,
  ): Promise<SynthesisResponse> {
    const cited = await this.finish(response, signal);
    recordCitationCounts(span, cited.citations);
    return cited;
  }
}
