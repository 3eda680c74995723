import type { CitationReport } from "../citations/check-citations.js";
import type { NodeWithScore } from "../schema/text-node.js";
import type { PageCitation } from "../trace-page/index.js";
import type { Style } from "./io.js";

/** The numbered pieces as source rows: row N is `Source N`, its text without the label, its node's metadata. */
export function citationSourceRows(report: CitationReport): NodeWithScore[] {
  return report.sources.map((source) => {
    const node = source.node.node.with({ text: source.text });
    return source.node.score === undefined ? { node } : { node, score: source.node.score };
  });
}

/** The citations as the trace page links them (its sources are {@link citationSourceRows}, in order). */
export function citationsForPage(report: CitationReport): PageCitation[] {
  return report.citations.map((citation) => ({
    offset: citation.offset,
    marker: citation.marker,
    source: citation.sourceNumber,
    unsupported: !citation.support.supported,
    score: `lexical ${citation.support.lexical.toFixed(2)}${citation.support.cosine === undefined ? "" : `, cosine ${citation.support.cosine.toFixed(2)}`}`,
  }));
}

/** One line per invalid and per unsupported citation (nothing when all are fine). */
export function formatCitationNotes(report: CitationReport, style: Style): string {
  const lines: string[] = [];
  for (const invalid of report.invalid)
    lines.push(
      style.red(`invalid citation ${invalid.marker}: no source ${invalid.numbers.join(", ")} (removed)`),
    );
  for (const citation of report.unsupported) {
    const score = `lexical ${citation.support.lexical.toFixed(2)}${citation.support.cosine === undefined ? "" : `, cosine ${citation.support.cosine.toFixed(2)}`}`;
    lines.push(
      style.yellow(`unsupported citation [${citation.sourceNumber}] (${score}): ${citation.sentence}`),
    );
  }
  if (report.uncited.length > 0) lines.push(style.dim(`${report.uncited.length} sentence(s) cite nothing`));
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** `citations` in `--json` (kept here for the commands that import it from the CLI). */
export { citationsToJSON } from "../citations/citations-to-json.js";
