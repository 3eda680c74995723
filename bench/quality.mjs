// Retrieval and answer quality on the small real-document corpus (bench/lib/corpus.mjs), offline.
// bench/quality/questions.json holds labelled questions, written by reading the files: each names the file(s)
// that answer it and a short phrase a correct answer contains. For each retriever, as the CLI runs it
// (SentenceSplitter 1024/200, HashingEmbedder with query-side IDF, top 4, compact, ExtractiveLLM):
//   Recall@1, Recall@4 (a right file among the first 1 / 4 chunks), MRR@10, the share of questions whose
//   retrieved text holds the phrase, and the share whose answer does (case and whitespace ignored).
// Then, with citations (as `ask --citations` runs offline): the share of answers that cite, and citation
// precision (the share of citations whose piece comes from a file the question names).
//   Recall@4 and the answer's phrase share are `ragsynth eval`'s own (the built CLI, spawned), its chunks checked against
//   the bench's index question by question, so the product and the bench cannot drift.
//   node bench/quality.mjs [--json out.json] [--show]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { citationQuality } from "./lib/citation-quality.mjs";
import { ensureCorpus } from "./lib/corpus.mjs";
import { DIST_INDEX, ROOT_DIR } from "./lib/libs.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const TOP_K = 4;
const MRR_DEPTH = 10;
const RETRIEVERS = [
  { name: "BM25 (new default, `--retrieval lexical`)", mode: "lexical" },
  { name: "hashing TF-IDF (old default, `--retrieval dense`)", mode: "dense" },
];

const normalize = (text) => text.toLowerCase().replace(/\s+/g, " ");
const fileOf = (node) => basename(String(node.metadata.file_path ?? ""));
const filesOf = (node) => [
  fileOf(node),
  ...(node.metadata.same_text_in ?? []).map((copy) => basename(String(copy))),
];

export async function qualityFigure({ show = false } = {}) {
  const lib = await import(pathToFileURL(DIST_INDEX).href);
  const corpus = await ensureCorpus("small");
  const questions = JSON.parse(readFileSync(join(HERE, "quality", "questions.json"), "utf8"));
  // Read as the CLI reads it: by its path relative to the working folder (`bench/corpora/out/small` from the
  // repository root), since a source's file_path is metadata the splitter counts toward each chunk's size, so
  // an absolute path cuts other chunks than `ragsynth eval <questions> bench/corpora/out/small` does.
  const { documents } = await lib.readDocuments([relative(process.cwd(), corpus.dir) || "."]);
  const embedder = new lib.HashingEmbedder({ applyIdf: "query", corpus: documents.map((d) => d.text) });
  const index = await lib.VectorStoreIndex.fromDocuments(documents, { embedModel: embedder });
  const rows = [];
  const halves = [];
  const details = [];
  const citations = [];
  for (const { name, mode } of RETRIEVERS) {
    // Recall@4 and the phrase share are `ragsynth eval`'s own figures: the CLI the users run, from dist/.
    const report = ragsynthEval({ dir: relative(process.cwd(), corpus.dir) || ".", questions, mode });
    const results = await evaluate({ lib, index, questions, mode, report });
    for (const result of results) details.push({ mode, ...result });
    rows.push({ name, ...summarize(results) });
    halves.push({ name, ...splitHalves(results) });
    const { perQuestion, ...cited } = await citationQuality({ lib, index, questions, mode, topK: TOP_K });
    citations.push({ name, ...cited });
    if (show) for (const item of perQuestion) console.log(`${mode} cites ${JSON.stringify(item)}`);
  }
  if (show) {
    for (const d of details) {
      console.log(
        `${d.mode} ${d.id} rank ${d.rank + 1} context ${d.inContext} answer ${d.inAnswer}\n  ${d.answer.replace(/\n/g, " ").slice(0, 300)}`,
      );
    }
  }
  return { corpus, questions: questions.length, chunks: index.nodes.length, rows, halves, citations };
}

/**
 * Runs `ragsynth eval <questions.jsonl> <dir> --modes compact --top-k 4 --retrieval <mode> --json` (the built CLI,
 * offline) on the questions, written as eval's JSONL (`{id, query, relevant, answer_hint}`), and returns its report.
 */
export function ragsynthEval(options) {
  return ragsynthEvalMeasured(options).report;
}

/**
 * {@link ragsynthEval}, also measuring the CLI process: its wall time (`ms`, from spawn to exit) and peak resident
 * set size (`maxRssKb`, getrusage's, written by a preload at exit). `cacheDir` keeps the index between runs.
 */
export function ragsynthEvalMeasured({ dir, questions, mode, modes = ["compact"], extra = [], cacheDir }) {
  const work = mkdtempSync(join(tmpdir(), "ragsynth-bench-eval-"));
  try {
    const file = join(work, "questions.jsonl");
    writeFileSync(
      file,
      questions
        .map((question) =>
          JSON.stringify({
            id: question.id,
            query: question.question ?? question.query,
            relevant: question.files,
            answer_hint: question.phrase,
          }),
        )
        .join("\n"),
    );
    const args = [
      join(ROOT_DIR, "dist", "cli", "bin.js"),
      "eval",
      file,
      dir,
      "--modes",
      modes.join(","),
      "--top-k",
      String(TOP_K),
      "--retrieval",
      mode,
      // The index cache outside the corpus folder, so the corpus stays as built.
      "--cache-dir",
      cacheDir ?? join(work, "cache"),
      "--json",
      ...extra,
    ];
    const rssFile = join(work, "max-rss");
    const env = { ...process.env, RAGSYNTH_BENCH_RSS_FILE: rssFile };
    for (const name of ["RAGSYNTH_LLM", "RAGSYNTH_EMBED", "RAGSYNTH_REDIS_URL"]) delete env[name];
    const preload = pathToFileURL(join(HERE, "lib", "max-rss-preload.mjs")).href;
    const started = performance.now();
    const run = spawnSync(process.execPath, ["--import", preload, ...args], {
      encoding: "utf8",
      env,
      maxBuffer: 1 << 30,
    });
    const ms = performance.now() - started;
    if (run.status !== 0) throw new Error(`ragsynth eval exited ${run.status}: ${run.stderr}`);
    return { report: JSON.parse(run.stdout), ms, maxRssKb: Number(readFileSync(rssFile, "utf8")) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Asks every question through an index as the CLI does offline (top 4, compact, ExtractiveLLM) and returns per
 * question: the rank of the first chunk of a right file among the first 10 (-1: none), whether the retrieved
 * text and the answer hold the expected phrase (case and whitespace ignored), the answer and its words.
 * A question is `{ id, question | query, files, phrase }`.
 */
export async function evaluate({ lib, index, questions, mode, report: given }) {
  // As the CLI retrieves (src/question-run/index-query.ts): the top k different texts, a file's copies in one slot.
  const retrieverFor = (similarityTopK) => index.asRetriever({ similarityTopK, retrievalMode: mode });
  const deep = lib.collapseCopies(retrieverFor, MRR_DEPTH);
  const top = lib.collapseCopies(retrieverFor, TOP_K);
  // Recall@1 and MRR@10 need the ranking past the top 4: one deep retrieval per question, timed.
  const ranks = [];
  for (const question of questions) {
    const query = question.question ?? question.query;
    const started = performance.now();
    const ranked = await deep.retrieve({ query });
    const ms = performance.now() - started;
    // A chunk counts for the files it stands for too (collapseCopies' same_text_in), as eval's hit@4 counts it.
    ranks.push({
      rank: ranked.findIndex(({ node }) => filesOf(node).some((file) => question.files.includes(file))),
      ms,
    });
  }
  // Recall@4 and "the answer holds the phrase" come from `ragsynth eval` when its report is given (the small
  // corpus), else from the product's own `evaluate` (what `ragsynth eval` runs), so the bench and the product
  // cannot drift; the retrieved chunks are kept for the context check.
  const contexts = new Map();
  const report =
    given ??
    (await lib.evaluate({
      questions: questions.map((question) => ({
        id: question.id,
        query: question.question ?? question.query,
        relevant: question.files,
        answer_hint: question.phrase,
      })),
      retriever: {
        retrieve: async (options) => {
          const nodes = await top.retrieve(options);
          contexts.set(options.query, nodes);
          return nodes;
        },
      },
      llm: new lib.ExtractiveLLM(),
      modes: ["compact"],
      k: TOP_K,
      concurrency: 1,
    }));
  const results = [];
  for (const [position, question] of questions.entries()) {
    const query = question.question ?? question.query;
    const { rank, ms } = ranks[position];
    const scored = report.questions[position];
    const answer = scored.answers[0];
    // Recall@4 is eval's hit@4 (the product's figure); Recall@1 and MRR come from the deep ranking. The two can
    // differ where BM25 ties or a file's other chunks move a chunk across the 4th place: counted, not hidden.
    const hit4 = scored.retrieval.hit === 1;
    if (given) {
      // The CLI's report keeps each source's id: the context is that of the same chunks, read from this index.
      const top4 = await top.retrieve({ query });
      const ids = top4.map(({ node }) => node.id);
      if (JSON.stringify(ids) !== JSON.stringify(scored.sources.map((source) => source.id))) {
        throw new Error(`ragsynth eval retrieved other chunks than the bench's index for "${question.id}"`);
      }
      contexts.set(query, top4);
    }
    const context = (contexts.get(query) ?? []).map(({ node }) => node.text).join("\n");
    const inContext = normalize(context).includes(normalize(question.phrase));
    const words = answer.answer.split(/\s+/).filter(Boolean).length;
    results.push({
      id: question.id,
      rank,
      hit4,
      rankDisagrees: (rank >= 0 && rank < TOP_K) !== hit4,
      ms,
      inContext,
      inAnswer: answer.holdsPhrase,
      words,
      answer: answer.answer,
    });
  }
  const summary = summarize(results);
  const figures = { recallAt4: report.retrieval.hitRate, answerHit: report.modes[0].phraseShare };
  if (summary.recallAt4 !== figures.recallAt4 || summary.answerHit !== figures.answerHit) {
    throw new Error(
      `the bench's figures ${JSON.stringify(summary)} differ from eval's ${JSON.stringify(figures)}`,
    );
  }
  return results;
}

/** The odd and even questions (1-based position in the file) summarized apart, to catch a change tuned to part of the set. */
export function splitHalves(results) {
  return {
    odd: summarize(results.filter((_, position) => position % 2 === 0)),
    even: summarize(results.filter((_, position) => position % 2 === 1)),
  };
}

/** Recall@1, Recall@4, MRR@10, phrase hit rates and mean retrieve time over per-question results. */
export function summarize(results) {
  const n = results.length;
  if (n === 0)
    return {
      questions: 0,
      recallAt1: 0,
      recallAt4: 0,
      mrr: 0,
      contextHit: 0,
      answerHit: 0,
      retrieveMs: 0,
      answerWords: 0,
    };
  const share = (test) => results.filter(test).length / n;
  return {
    questions: n,
    recallAt1: share(({ rank }) => rank === 0),
    recallAt4: share(({ rank, hit4 }) => (hit4 === undefined ? rank >= 0 && rank < TOP_K : hit4)),
    rankDisagreements: results.filter(({ rankDisagrees }) => rankDisagrees).length,
    mrr: results.reduce((sum, { rank }) => sum + (rank >= 0 ? 1 / (rank + 1) : 0), 0) / n,
    contextHit: share(({ inContext }) => inContext),
    answerHit: share(({ inAnswer }) => inAnswer),
    retrieveMs: results.reduce((sum, { ms }) => sum + ms, 0) / n,
    answerWords: results.reduce((sum, { words }) => sum + words, 0) / n,
  };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const { corpus, questions, chunks, rows, halves, citations } = await qualityFigure({
    show: process.argv.includes("--show"),
  });
  const pct = (value) => `${(value * 100).toFixed(0)}%`;
  console.log(
    `Quality on the small corpus: ${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(2)} MB, ${chunks} chunks; ${questions} labelled questions; offline (ExtractiveLLM, compact, top ${TOP_K})\n`,
  );
  console.log(
    "| retriever | Recall@1 | Recall@4 | MRR@10 | retrieved text holds the phrase | answer holds the phrase | answer words (mean) | retrieve ms / query |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${row.recallAt1.toFixed(2)} | ${row.recallAt4.toFixed(2)} | ${row.mrr.toFixed(2)} | ${pct(row.contextHit)} | ${pct(row.answerHit)} | ${row.answerWords.toFixed(0)} | ${row.retrieveMs.toFixed(1)} |`,
    );
  }
  console.log("\nHalves (odd / even question positions), to check a change helps both:\n");
  console.log(
    "| retriever | Recall@1 odd / even | Recall@4 odd / even | MRR@10 odd / even | answer holds the phrase odd / even | answer words odd / even |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const { name, odd, even } of halves) {
    console.log(
      `| ${name} | ${odd.recallAt1.toFixed(2)} / ${even.recallAt1.toFixed(2)} | ${odd.recallAt4.toFixed(2)} / ${even.recallAt4.toFixed(2)} | ${odd.mrr.toFixed(2)} / ${even.mrr.toFixed(2)} | ${pct(odd.answerHit)} / ${pct(even.answerHit)} | ${odd.answerWords.toFixed(0)} / ${even.answerWords.toFixed(0)} |`,
    );
  }
  console.log(
    "\nCitations (`ask --citations` offline: the extractive answer's quotes cited with their piece):\n",
  );
  console.log(
    "| retriever | answers that cite | citations | citation precision (piece from a relevant file) | precision where a relevant file was retrieved | invalid | unsupported |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const row of citations) {
    console.log(
      `| ${row.name} | ${row.citing}/${row.answers} (${pct(row.citingShare)}) | ${row.citations} | ${row.precision.toFixed(2)} (${row.relevant}/${row.citations}) | ${row.precisionWhenRetrieved.toFixed(2)} (${row.retrievedRelevant}/${row.retrievedCitations}) | ${row.invalid} | ${row.unsupported} |`,
    );
  }
  const at = process.argv.indexOf("--json");
  if (at > 0)
    writeFileSync(
      process.argv[at + 1],
      `${JSON.stringify({ questions, chunks, rows, halves, citations }, null, 2)}\n`,
    );
}
