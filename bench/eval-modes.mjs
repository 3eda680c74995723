// `ragsynth eval` on the bench's labelled questions over the small corpus, offline (ExtractiveLLM, BM25, top 4):
//   - every one of the nine response modes on the same retrieval: quality (answer holds the phrase, answer length)
//     beside cost (LLM calls, prompt and completion tokens a model would be sent, synthesis time), and the CLI's wall;
//   - scale: 1,000 questions (the labelled ones, cycled) × 3 modes in one `ragsynth eval` process: its wall time and
//     peak RSS, with the index already cached (a first run of the labelled questions builds it, and is not counted).
// The CLI is the built one (dist/), spawned as users run it.
//   node bench/eval-modes.mjs [--quick] [--json out.json]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureCorpus } from "./lib/corpus.mjs";
import { ragsynthEvalMeasured } from "./quality.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
export const NINE_MODES = [
  "compact",
  "refine",
  "tree_summarize",
  "simple_summarize",
  "accumulate",
  "compact_accumulate",
  "generation",
  "no_text",
  "context_only",
];
export const SCALE_MODES = ["compact", "refine", "tree_summarize"];

export async function evalModes({ quick = false } = {}) {
  const corpus = await ensureCorpus("small");
  const labelled = JSON.parse(readFileSync(join(HERE, "quality", "questions.json"), "utf8"));
  const dir = relative(process.cwd(), corpus.dir) || ".";
  const cacheDir = mkdtempSync(join(tmpdir(), "ragsynth-bench-eval-modes-"));
  try {
    const questions = quick ? labelled.slice(0, 12) : labelled;
    // One question at a time, so each mode's synthesis time is its own (with 4 in flight, a synthesis waits on
    // the other questions' retrieval and the sum of times overlaps).
    const nine = ragsynthEvalMeasured({
      dir,
      questions,
      mode: "lexical",
      modes: NINE_MODES,
      cacheDir,
      extra: ["--concurrency", "1"],
    });
    const count = quick ? 100 : 1000;
    const many = Array.from({ length: count }, (_, index) => {
      const question = labelled[index % labelled.length];
      return { ...question, id: `${question.id}-${index}` };
    });
    const scale = ragsynthEvalMeasured({
      dir,
      questions: many,
      mode: "lexical",
      modes: SCALE_MODES,
      cacheDir,
    });
    return {
      corpus: { files: corpus.files.length, bytes: corpus.bytes },
      nine: { questions: questions.length, ms: nine.ms, maxRssKb: nine.maxRssKb, report: nine.report },
      scale: {
        questions: count,
        modes: SCALE_MODES,
        ms: scale.ms,
        maxRssKb: scale.maxRssKb,
        calls: scale.report.modes.reduce((sum, mode) => sum + mode.usage.calls, 0),
        phraseShare: Object.fromEntries(scale.report.modes.map((mode) => [mode.mode, mode.phraseShare])),
      },
    };
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** The nine-mode table's rows, as `ragsynth eval` prints them (the ★ on the best quality per cost). */
export function nineModeRows(report) {
  const pct = (value) => (value === undefined ? "–" : `${(value * 100).toFixed(0)}%`);
  return report.modes.map((mode) => [
    mode.mode,
    `${pct(mode.phraseShare)} of ${mode.phraseQuestions}`,
    mode.meanAnswerTokens.toFixed(0),
    String(mode.errors),
    mode.usage.calls.toLocaleString("en-US"),
    mode.usage.promptTokens.toLocaleString("en-US"),
    mode.usage.completionTokens.toLocaleString("en-US"),
    `${(mode.wallMs / 1000).toFixed(2)} s`,
    report.best?.mode === mode.mode ? "★" : "",
  ]);
}

export const NINE_MODE_HEADERS = [
  "mode",
  "answer holds the phrase",
  "answer tokens (mean)",
  "errors",
  "LLM calls",
  "prompt tokens",
  "completion tokens",
  "synthesis time (sum)",
  "best per 1k tokens",
];

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const result = await evalModes({ quick: process.argv.includes("--quick") });
  const { nine, scale } = result;
  console.log(
    `ragsynth eval, nine modes, offline: ${nine.questions} labelled questions over the small corpus (${result.corpus.files} files); Recall@4 ${nine.report.retrieval.hitRate.toFixed(2)}; CLI wall ${(nine.ms / 1000).toFixed(1)} s, peak RSS ${(nine.maxRssKb / 1024).toFixed(0)} MB\n`,
  );
  console.log(`| ${NINE_MODE_HEADERS.join(" | ")} |`);
  console.log(`|${NINE_MODE_HEADERS.map(() => "---").join("|")}|`);
  for (const row of nineModeRows(nine.report)) console.log(`| ${row.join(" | ")} |`);
  console.log(
    `\nScale: ${scale.questions} questions × ${scale.modes.length} modes (${scale.modes.join(", ")}), offline, index cached: wall ${(scale.ms / 1000).toFixed(1)} s, peak RSS ${(scale.maxRssKb / 1024).toFixed(0)} MB, ${scale.calls.toLocaleString("en-US")} LLM calls`,
  );
  const at = process.argv.indexOf("--json");
  if (at > 0) writeFileSync(process.argv[at + 1], `${JSON.stringify(result, null, 2)}\n`);
}
