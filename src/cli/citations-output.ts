import type { CitationReport } from "../citations/check-citations.js";
import type { Style } from "./io.js";
import type { PageCitation } from "./trace-page/index.js";

/** How a citation was scored: `lexical 0.20, cosine 0.71, judge NO`. */
function scoreText(support: CitationReport["citations"][number]["support"]): string {
  const parts = [`lexical ${support.lexical.toFixed(2)}`];
  if (support.cosine !== undefined) parts.push(`cosine ${support.cosine.toFixed(2)}`);
  if (support.judge !== undefined)
    parts.push(`judge ${support.judge === null ? "?" : support.judge ? "YES" : "NO"}`);
  return parts.join(", ");
}

/** The citations as the trace page links them (its sources are {@link citationSourceRows}, in order). */
export function citationsForPage(report: CitationReport): PageCitation[] {
  return report.citations.map((citation) => ({
    offset: citation.offset,
    marker: citation.marker,
    source: citation.sourceNumber,
    unsupported: !citation.support.supported,
    score: scoreText(citation.support),
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
    const score = scoreText(citation.support);
    lines.push(
      style.yellow(`unsupported citation [${citation.sourceNumber}] (${score}): ${citation.sentence}`),
    );
  }
  if (report.uncited.length > 0) lines.push(style.dim(`${report.uncited.length} sentence(s) cite nothing`));
  const undecided = report.citations.filter((citation) => citation.support.judge === null);
  if (undecided.length > 0) {
    const reason = undecided[0]?.support.judgeError ?? "";
    lines.push(
      style.yellow(
        `the judge gave no verdict on ${undecided.length} citation(s), scored by overlap instead (${reason})`,
      ),
    );
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
