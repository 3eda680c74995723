// The extraction figure for `npm run bench`: word-level F1 of ragsynth's format readers against pdftotext
// (PDF) and `pandoc -t plain` (HTML, DOCX, RST) on the mixed corpus, and the PDF reader's wall time beside
// pdftotext's (bench/extraction.mjs). Skipped with a line when the corpus is not built; a format whose reader is
// not built yet is a row saying so. --quick measures 5 files a format.

import { extractionFigure as measureExtraction } from "../extraction.mjs";
import { target } from "../lib/report.mjs";

export async function extractionFigure({ quick = false } = {}) {
  const title = "Extraction quality against the standard tools (mixed corpus)";
  const headers = [
    "format",
    "files",
    "against",
    "word F1 (micro)",
    "precision",
    "recall",
    "lowest file F1",
    "reader s",
    "tool s",
    "reader ÷ tool",
    "reader MB/s",
  ];
  const figure = await measureExtraction(quick ? { limit: 5 } : {});
  if (figure.skipped) {
    return {
      id: "extraction",
      title,
      headers,
      rows: [["all", "n/a (corpus not built)", "", "", "", "", "", "", "", "", ""]],
      notes: [figure.skipped],
    };
  }
  const rows = figure.rows.map((row) =>
    row.skipped
      ? [row.format, row.files, "n/a: reader not built yet", "", "", "", "", "", "", "", ""]
      : [
          row.format,
          row.files,
          row.tool,
          row.f1.toFixed(3),
          row.precision.toFixed(3),
          row.recall.toFixed(3),
          `${row.lowest.f1.toFixed(3)} (${row.lowest.file})`,
          (row.readerMs / 1000).toFixed(2),
          row.toolMs === undefined ? "(cached)" : (row.toolMs / 1000).toFixed(2),
          row.toolMs === undefined ? "" : (row.readerMs / row.toolMs).toFixed(2),
          row.readerMBps.toFixed(1),
        ],
  );
  const targets = [];
  for (const row of figure.rows) {
    if (row.skipped) {
      targets.push(target(`${row.format}: word F1`, "≥ 0.97", "n/a", null));
      continue;
    }
    targets.push(target(`${row.format}: word F1`, "≥ 0.97", row.f1.toFixed(3), row.f1 >= 0.97));
    if (row.format === "pdf" && row.toolMs !== undefined)
      targets.push(
        target(
          "pdf: reader wall ÷ pdftotext",
          "≤ 3×",
          `${(row.readerMs / row.toolMs).toFixed(2)}×`,
          quick ? null : row.readerMs <= 3 * row.toolMs,
        ),
      );
    if (row.format === "html")
      targets.push(
        target("html: reader MB/s", "≥ 20", row.readerMBps.toFixed(1), quick ? null : row.readerMBps >= 20),
      );
  }
  return {
    id: "extraction",
    title,
    headers,
    rows,
    targets,
    notes: figure.notes,
    json: { rows: figure.rows },
  };
}
