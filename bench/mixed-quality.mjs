// Retrieval and answer quality offline on the mixed-format corpus (bench/lib/mixed-corpus.mjs): the labelled
// questions of bench/quality/mixed-questions.jsonl (written by reading the documents; each names its file, an
// expected phrase and the file's format), asked as the CLI asks them (BM25, top 4, compact, ExtractiveLLM).
// Reports Recall@1/@4, MRR@10, phrase in the retrieved text and in the answer, answer words: overall, per format
// and per odd/even half; and how many files of each format ragsynth read (the rest skipped, by reason).
//
//   node bench/mixed-quality.mjs [--build] [--install] [--reference] [--json out.json] [--show]
//
// --reference asks the same questions over the standard tools' text of each file instead (pdftotext, pandoc,
// groff; made once into bench/corpora/out/mixed-reference/): the bar the format readers are measured against.
//
// Without --build it uses the corpus only when it is already built, else prints how to build it and exits 0.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DIST_INDEX } from "./lib/libs.mjs";
import { ensureMixedCorpus, ensureReferenceTexts, mixedCorpusIfBuilt } from "./lib/mixed-corpus.mjs";
import { evaluate, splitHalves, summarize } from "./quality.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
export const MIXED_QUESTIONS = join(HERE, "quality", "mixed-questions.jsonl");
export const NOT_BUILT_LINE =
  "mixed corpus not built: skipped (build it with `node bench/lib/mixed-corpus.mjs --install`, needs apt-get and root)";

/** The labelled questions, one JSON object a line. */
export function readMixedQuestions() {
  return readFileSync(MIXED_QUESTIONS, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** The format of a corpus file from its name (the manifest's formats: html, pdf, man, rst, docx, md). */
export function formatOf(name) {
  if (name.endsWith(".gz")) return "man";
  return extname(name).slice(1).toLowerCase();
}

/**
 * Measures the mixed corpus, or returns `{ skipped: reason }` when it is not built and `build` is false.
 * @returns {{ corpus, questions, chunks, read, skippedFiles, overall, halves, formats }}
 */
export async function mixedQualityFigure({
  build = false,
  install = false,
  show = false,
  reference = false,
} = {}) {
  const corpus = build ? await ensureMixedCorpus({ install }) : mixedCorpusIfBuilt();
  if (corpus === undefined) return { skipped: NOT_BUILT_LINE };
  const lib = await import(pathToFileURL(DIST_INDEX).href);
  // With `reference`, the same questions over the standard tools' text of each file (`<name>.txt`): what plain
  // BM25 reaches when extraction is as good as pdftotext's and pandoc's.
  const questions = readMixedQuestions().map((question) =>
    reference ? { ...question, files: question.files.map((file) => `${file}.txt`) } : question,
  );
  const folder = reference ? ensureReferenceTexts(corpus) : corpus.dir;
  const { documents, skipped } = await lib.readDocuments([folder]);
  const read = {};
  for (const file of new Set(documents.map((d) => basename(String(d.metadata.file_path ?? ""))))) {
    const format = formatOf(reference ? file.replace(/\.txt$/, "") : file);
    read[format] = (read[format] ?? 0) + 1;
  }
  const skippedFiles = {};
  for (const { path, code } of skipped) {
    const key = `${formatOf(reference ? path.replace(/\.txt$/, "") : path)}: ${code}`;
    skippedFiles[key] = (skippedFiles[key] ?? 0) + 1;
  }
  const embedder = new lib.HashingEmbedder({ applyIdf: "query", corpus: documents.map((d) => d.text) });
  const index = await lib.VectorStoreIndex.fromDocuments(documents, { embedModel: embedder });
  const results = await evaluate({ lib, index, questions, mode: "lexical" });
  const formats = {};
  for (const format of [...new Set(questions.map((q) => q.format))].sort()) {
    formats[format] = summarize(results.filter((_, at) => questions[at]?.format === format));
  }
  if (show) {
    for (const [at, r] of results.entries()) {
      console.log(
        `${r.id} [${questions[at]?.format}] rank ${r.rank + 1} context ${r.inContext} answer ${r.inAnswer}\n  ${r.answer.replace(/\n/g, " ").slice(0, 300)}`,
      );
    }
  }
  return {
    corpus,
    questions: questions.length,
    chunks: index.nodes.length,
    read,
    skippedFiles,
    overall: summarize(results),
    halves: splitHalves(results),
    formats,
  };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const figure = await mixedQualityFigure({
    build: process.argv.includes("--build") || process.argv.includes("--install"),
    install: process.argv.includes("--install"),
    show: process.argv.includes("--show"),
    reference: process.argv.includes("--reference"),
  });
  if (figure.skipped) {
    console.log(figure.skipped);
  } else {
    const { corpus, questions, chunks, read, skippedFiles, overall, halves, formats } = figure;
    const pct = (value) => `${(value * 100).toFixed(0)}%`;
    const files = Object.entries(corpus.formats)
      .map(([format, { files }]) => `${format} ${read[format] ?? 0}/${files}`)
      .join(", ");
    console.log(
      `Quality on the mixed corpus: ${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(2)} MB; read by ragsynth: ${files}; ${chunks} chunks; ${questions} labelled questions; offline (BM25, ExtractiveLLM, compact, top 4)`,
    );
    if (Object.keys(skippedFiles).length > 0)
      console.log(
        `skipped: ${Object.entries(skippedFiles)
          .map(([key, count]) => `${key} ${count}`)
          .join(", ")}`,
      );
    console.log(
      "\n| set | questions | Recall@1 | Recall@4 | MRR@10 | retrieved text holds the phrase | answer holds the phrase | answer words (mean) |",
    );
    console.log("|---|---|---|---|---|---|---|---|");
    const row = (name, s) =>
      console.log(
        `| ${name} | ${s.questions} | ${s.recallAt1.toFixed(2)} | ${s.recallAt4.toFixed(2)} | ${s.mrr.toFixed(2)} | ${pct(s.contextHit)} | ${pct(s.answerHit)} | ${s.answerWords.toFixed(0)} |`,
      );
    row("all", overall);
    row("odd half", halves.odd);
    row("even half", halves.even);
    for (const [format, summary] of Object.entries(formats)) row(format, summary);
    const at = process.argv.indexOf("--json");
    if (at > 0)
      writeFileSync(process.argv[at + 1], `${JSON.stringify({ ...figure, corpus: undefined }, null, 2)}\n`);
  }
}
