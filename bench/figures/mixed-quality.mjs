// The mixed-format figure for `npm run bench`: bench/mixed-quality.mjs's Recall@k and phrase rates on the labelled
// questions over the mixed corpus (HTML, PDF, man, RST, DOCX, Markdown), overall, per half and per format, with
// issue 26's targets. Skipped with a line when the corpus is not built (it needs Debian packages, see
// bench/lib/mixed-corpus.mjs); the bench never installs them itself.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../lib/cli-run.mjs";
import { NOT_BUILT, ragsynthExports } from "../lib/libs.mjs";
import { REFERENCE_DIR } from "../lib/mixed-corpus.mjs";
import { target } from "../lib/report.mjs";
import { mixedQualityFigure as measureMixed } from "../mixed-quality.mjs";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Issue 26's speed line on this corpus, through the built CLI as a user runs it (offline, a fresh cache folder):
 * the first index, an unchanged re-index and an ask (medians of 3), and the peak RSS of all those processes.
 */
function cliOnCorpus(dir, question) {
  const cache = mkdtempSync(join(tmpdir(), "bench-mixed-"));
  try {
    const first = cli(["index", dir, "--cache-dir", cache]);
    const again = [0, 1, 2].map(() => cli(["index", dir, "--cache-dir", cache]));
    const asks = [0, 1, 2].map(() => cli(["ask", dir, "--cache-dir", cache, "-q", question, "--no-stream"]));
    return {
      firstMs: first.ms,
      unchangedMs: median(again.map((run) => run.ms)),
      askMs: median(asks.map((run) => run.ms)),
      rssMB: Math.max(first.rss, ...again.map((run) => run.rss), ...asks.map((run) => run.rss)),
    };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

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
  const question = "What limits how many databases one SQLite connection can attach at the same time?";
  const run = quick ? undefined : cliOnCorpus(corpus.dir, question);
  const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
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
      ...(reference?.overall ? [row("bar: the standard tools' text", reference.overall)] : []),
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
      ...(run
        ? [
            target("mixed: first index", "≤ 30 s", seconds(run.firstMs), run.firstMs <= 30_000),
            target("mixed: unchanged index", "≤ 1 s", seconds(run.unchangedMs), run.unchangedMs <= 1000),
            target("mixed: ask wall", "≤ 1 s", seconds(run.askMs), run.askMs <= 1000),
            target("mixed: peak RSS", "≤ 500 MB", `${run.rssMB.toFixed(0)} MB`, run.rssMB <= 500),
          ]
        : []),
    ],
    notes: [
      `${questions} labelled questions over the mixed corpus (${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(2)} MB, ${chunks} chunks). Files read by ragsynth per format: ${readLine}.${skippedLine ? ` Skipped: ${skippedLine}.` : ""}`,
      reference?.overall
        ? "The bar row: the same questions over each file's text as pdftotext, pandoc -t plain and groff give it (node bench/mixed-quality.mjs --reference), read as .txt."
        : "No bar row: the standard tools' text is not made yet (node bench/mixed-quality.mjs --reference makes it).",
      "As the CLI asks offline: BM25, top 4, compact, ExtractiveLLM. Recall@k: a chunk of the right file among the first k. Odd / even: the questions at odd and even positions of the file.",
      ...(run
        ? [
            `The built CLI on this corpus, offline, a fresh cache folder: first \`ragsynth index\` ${seconds(run.firstMs)}, unchanged re-index ${seconds(run.unchangedMs)} and \`ask -q "${question}" --no-stream\` ${seconds(run.askMs)} (medians of 3), peak RSS of those processes ${run.rssMB.toFixed(0)} MB; started and timed by the small launcher of the corpus figure.`,
          ]
        : []),
    ],
    json: {
      cli: run,
      questions,
      chunks,
      read,
      skippedFiles,
      overall,
      halves,
      formats,
      reference: reference?.overall,
    },
  };
}
