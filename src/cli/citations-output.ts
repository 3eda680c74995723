import type { CitationReport } from "../citations/check-citations.js";
import { supportText } from "../citations/citation-support.js";
import type { Style } from "./io.js";

/** One line per invalid and per unsupported citation (nothing when all are fine). */
export function formatCitationNotes(report: CitationReport, style: Style): string {
  const lines: string[] = [];
  for (const invalid of report.invalid)
    lines.push(
      style.red(`invalid citation ${invalid.marker}: no source ${invalid.numbers.join(", ")} (removed)`),
    );
  for (const citation of report.unsupported) {
    const score = supportText(citation.support);
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
