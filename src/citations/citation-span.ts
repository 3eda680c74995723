import type { Attributes, Span } from "@opentelemetry/api";
import type { CitationReport } from "./check-citations.js";

/**
 * The counts the query span carries for a cited answer (no text): `ragsynth.citations.total` (valid citations),
 * `.invalid` (markers naming no source, removed), `.unsupported` (citations under the support threshold),
 * `.uncited` (sentences with no marker) and `.sources` (numbered pieces the model was shown).
 */
export function citationSpanAttributes(report: CitationReport): Attributes {
  return {
    "ragsynth.citations.total": report.citations.length,
    "ragsynth.citations.invalid": report.invalid.length,
    "ragsynth.citations.unsupported": report.unsupported.length,
    "ragsynth.citations.uncited": report.uncited.length,
    "ragsynth.citations.sources": report.sources.length,
  };
}

/** Puts {@link citationSpanAttributes} on `span` (nothing when it is not recording). */
export function recordCitationCounts(span: Span, report: CitationReport): void {
  if (span.isRecording()) span.setAttributes(citationSpanAttributes(report));
}
