import type { CitationReport } from "./check-citations.js";
import { supportText } from "./citation-support.js";

/** How the notes mark an invalid citation, an unsupported one and a count (the CLI's colors, or plain text). */
export interface CitationNotesStyle {
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
}

/** One line per invalid and per unsupported citation (nothing when all are fine), as `ask --citations` prints them. */
export function formatCitationNotes(report: CitationReport, style: CitationNotesStyle): string {
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
