// The eval figure for `npm run bench`: bench/eval-modes.mjs's nine-mode table (`ragsynth eval` offline on the labelled
// questions, quality beside cost per response mode) and the scale run (1,000 questions × 3 modes: wall time, peak RSS).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { evalModes, NINE_MODE_HEADERS, nineModeRows } from "../eval-modes.mjs";
import { NOT_BUILT, ROOT_DIR } from "../lib/libs.mjs";

export async function evalModesFigure({ quick = false } = {}) {
  const title =
    "ragsynth eval: the nine response modes on the labelled questions, offline (bench/eval-modes.mjs)";
  if (!existsSync(join(ROOT_DIR, "dist", "cli", "bin.js"))) {
    return { id: "eval", title, headers: NINE_MODE_HEADERS, rows: [["all", NOT_BUILT]], notes: [] };
  }
  const { corpus, nine, scale } = await evalModes({ quick });
  const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
  return {
    id: "eval",
    title,
    headers: NINE_MODE_HEADERS,
    rows: nineModeRows(nine.report),
    notes: [
      `\`ragsynth eval <questions> bench/corpora/out/small --modes <all nine> --json\` (built CLI, ExtractiveLLM, BM25, top 4, one question at a time so each synthesis time is its own): ${nine.questions} labelled questions over ${corpus.files} files, every mode answering from the same retrieval (Recall@4 ${nine.report.retrieval.hitRate.toFixed(2)}). Token columns are what a model would be sent and write; offline they cost nothing, so ★ marks the best phrase share per 1,000 tokens (context_only and no_text never get it). CLI wall ${(nine.ms / 1000).toFixed(1)} s including reading and indexing the corpus, peak RSS ${mb(nine.maxRssKb)}.`,
      `Scale: ${scale.questions.toLocaleString("en-US")} questions (the labelled ones, cycled) × ${scale.modes.length} modes (${scale.modes.join(", ")}) in one \`ragsynth eval\` process, offline, index already cached: wall ${(scale.ms / 1000).toFixed(1)} s, peak RSS ${mb(scale.maxRssKb)}, ${scale.calls.toLocaleString("en-US")} LLM calls.`,
    ],
    json: {
      corpus,
      nine: { questions: nine.questions, ms: nine.ms, maxRssKb: nine.maxRssKb, modes: nine.report.modes },
      scale,
    },
  };
}
