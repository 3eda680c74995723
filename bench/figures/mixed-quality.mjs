// The mixed-format figure for `npm run bench`: bench/mixed-quality.mjs's Recall@k and phrase rates on the labelled
// questions over the mixed corpus (HTML, PDF, man, RST, DOCX, Markdown), overall, per half and per format, with
// issue 26's targets. Skipped with a line when the corpus is not built (it needs Debian packages, see
// bench/lib/mixed-corpus.mjs); the bench never installs them itself.

import { existsSync } from "node:fs";
import { NOT_BUILT, ragsynthExports } from "../lib/libs.mjs";
import { REFERENCE_DIR } from "../lib/mixed-corpus.mjs";
import { target } from "../lib/report.mjs";
import { mixedQualityFigure as measureMixed } from "../mixed-quality.mjs";

export async function mixedQualityFigure({ quick = false } = {}) {
  const title =
    "Retrieval and answer quality on the mixed-format corpus, offline (bench/quality/mixed-questions.jsonl)";
  const headers = [
    "set",
    "questions",
    "Recall@1",
    "Recall@4",
    "MRR@10",
    "retrieved text holds the phrase",
    "answer holds the phrase",
    "answer words (mean)",
  ];
  const lib = await ragsynthExports([
    "VectorStoreIndex",
    "ExtractiveLLM",
    "HashingEmbedder",
    "readDocuments",
  ]);
  if (typeof lib === "string") {
    return { id: "mixed", title, headers, rows: [["all", NOT_BUILT, "", "", "", "", "", ""]], notes: [lib] };
  }
  const figure = await measureMixed();
  if (figure.skipped) {
    return {
      id: "mixed",
      title,
      headers,
      rows: [["all", "n/a (corpus not built)", "", "", "", "", "", ""]],
      notes: [figure.skipped],
    };
  }
  const { corpus, questions, chunks, read, skippedFiles, overall, halves, formats } = figure;
  // The bar: the same questions over the standard tools' text (only when those texts were made, and not in --quick).
  const reference = !quick && existsSync(REFERENCE_DIR) ? await measureMixed({ reference: true }) : undefined;
  const pct = (value) => `${(value * 100).toFixed(0)}%`;
  const row = (name, s) => [
    name,
    s.questions,
    s.recallAt1.toFixed(2),
    s.recallAt4.toFixed(2),
    s.mrr.toFixed(2),
    pct(s.contextHit),
    pct(s.answerHit),
    s.answerWords.toFixed(0),
  ];
  const worst = Object.entries(formats).reduce(
    (low, [format, s]) => ({
      recall: s.recallAt4 < low.recall.value ? { format, value: s.recallAt4 } : low.recall,
      answer: s.answerHit < low.answer.value ? { format, value: s.answerHit } : low.answer,
    }),
    { recall: { format: "", value: 1 }, answer: { format: "", value: 1 } },
  );
  const readLine = Object.entries(corpus.formats)
    .map(([format, { files }]) => `${format} ${read[format] ?? 0}/${files}`)
    .join(", ");
  const skippedLine = Object.entries(skippedFiles)
    .map(([key, count]) => `${key} ${count}`)
    .join(", ");
  return {
    id: "mixed",
    title,
    headers,
    rows: [
      row("all", overall),
      row("odd half", halves.odd),
      row("even half", halves.even),
      ...Object.entries(formats).map(([format, s]) => row(format, s)),
    ],
    targets: [
      target("mixed: Recall@4", "≥ 0.9", overall.recallAt4.toFixed(2), overall.recallAt4 >= 0.9),
      target("mixed: answer holds the phrase", "≥ 60%", pct(overall.answerHit), overall.answerHit >= 0.6),
      target(
        "mixed: lowest format Recall@4",
        "≥ 0.85",
        `${worst.recall.value.toFixed(2)} (${worst.recall.format})`,
        worst.recall.value >= 0.85,
      ),
      target(
        "mixed: lowest format answer",
        "≥ 50%",
        `${pct(worst.answer.value)} (${worst.answer.format})`,
        worst.answer.value >= 0.5,
      ),
    ],
    notes: [
      `${questions} labelled questions over the mixed corpus (${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(2)} MB, ${chunks} chunks). Files read by ragsynth per format: ${readLine}.${skippedLine ? ` Skipped: ${skippedLine}.` : ""}`,
      reference?.overall
        ? "The bar row: the same questions over each file's text as pdftotext, pandoc -t plain and groff give it (node bench/mixed-quality.mjs --reference), read as .txt."
        : "No bar row: the standard tools' text is not made yet (node bench/mixed-quality.mjs --reference makes it).",
      "As the CLI asks offline: BM25, top 4, compact, ExtractiveLLM. Recall@k: a chunk of the right file among the first k. Odd / even: the questions at odd and even positions of the file.",
    ],
    json: { questions, chunks, read, skippedFiles, overall, halves, formats, reference: reference?.overall },
  };
}
