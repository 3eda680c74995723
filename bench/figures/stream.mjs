// Figure: streaming, time to the first delta minus the fake model's own time before its first token
// (for multi-call modes: minus the union of the model's busy time before that delta). What is left is
// the library: packing, prompt building, stream plumbing.
import { FakeModel } from "../lib/fake-llm.mjs";
import { nodeTexts, queryOfTokens } from "../lib/fixtures.mjs";
import { NOT_BUILT } from "../lib/libs.mjs";
import { fmt, fmtRatio } from "../lib/report.mjs";
import { interleave, median, ratio } from "../lib/stats.mjs";
import { errorCell, peerSynthesizer, ragsynthSynthesizer } from "../lib/synth.mjs";

const TTFT_MS = 30;

const CASES = [
  {
    name: "compact, 5 × 300 tok, window 4096 (1 call)",
    mode: "compact",
    count: 5,
    helper: { contextWindow: 4096, numOutput: 256, chunkOverlapRatio: 0.1 },
  },
  {
    name: "refine, 5 × 300 tok, window 4096 (5 calls)",
    mode: "refine",
    count: 5,
    helper: { contextWindow: 4096, numOutput: 256, chunkOverlapRatio: 0.1 },
  },
  {
    name: "tree_summarize, 20 × 300 tok, window 1024",
    mode: "tree_summarize",
    count: 20,
    helper: { contextWindow: 1024, numOutput: 256, chunkOverlapRatio: 0.1 },
  },
];

export async function streamFigure({ runs }) {
  const query = queryOfTokens(1, 10);
  const rows = [];
  const results = {};
  const reasons = new Set();
  for (const testCase of CASES) {
    const texts = nodeTexts({ count: testCase.count, tokens: 300, seed: 41 });
    const libraries = {
      ragsynth: (model) => ragsynthSynthesizer({ mode: testCase.mode, model, helper: testCase.helper }),
      llamaindex: (model) => peerSynthesizer({ mode: testCase.mode, model, helper: testCase.helper }),
    };
    const details = { ragsynth: [], llamaindex: [] };
    const errors = {};
    const entrants = [];
    for (const [name, make] of Object.entries(libraries)) {
      const probe = await make(new FakeModel());
      if (typeof probe === "string") {
        errors[name] = NOT_BUILT;
        reasons.add(probe);
        continue;
      }
      entrants.push({
        name,
        fn: async () => {
          const model = new FakeModel({ latencyMs: TTFT_MS, ttftMs: TTFT_MS, deltaMs: 0 });
          const synthesizer = await make(model);
          const start = performance.now();
          try {
            const { firstDeltaAt, text } = await synthesizer.stream({ query, texts });
            const ttfd = firstDeltaAt - start;
            const modelTime = model.busyTimeBefore(firstDeltaAt);
            details[name].push({ ttfd, modelTime, calls: model.calls.length, textTokens: text.length });
            return ttfd - modelTime;
          } catch (error) {
            errors[name] = errorCell(error);
            reasons.add(String(error?.stack ?? error).split("\n")[0]);
            return Number.NaN;
          }
        },
      });
    }
    const timings = await interleave(entrants, { runs, warmup: 1 });
    const cell = (name, pick) => {
      if (errors[name]) return errors[name];
      const values = details[name].slice(-runs).map(pick);
      return fmt(median(values), 2);
    };
    const overhead = (name) => (errors[name] ? Number.NaN : timings[name]?.median);
    results[testCase.name] = {
      ragsynth: {
        overheadMs: overhead("ragsynth"),
        runs: details.ragsynth.slice(-runs),
        error: errors.ragsynth,
      },
      llamaindex: {
        overheadMs: overhead("llamaindex"),
        runs: details.llamaindex.slice(-runs),
        error: errors.llamaindex,
      },
    };
    rows.push([
      testCase.name,
      cell("ragsynth", (d) => d.ttfd),
      cell("ragsynth", (d) => d.modelTime),
      errors.ragsynth ?? fmt(overhead("ragsynth"), 2),
      cell("llamaindex", (d) => d.ttfd),
      cell("llamaindex", (d) => d.modelTime),
      errors.llamaindex ?? fmt(overhead("llamaindex"), 2),
      fmtRatio(ratio(overhead("ragsynth"), overhead("llamaindex"))),
    ]);
  }
  return {
    id: "stream",
    title: `streaming: time to first delta minus the model's own time (fake: ${TTFT_MS} ms to first token, ${TTFT_MS} ms per non-streamed call) — median of ${runs}, ms`,
    headers: [
      "case",
      "ragsynth first delta",
      "model time",
      "ragsynth overhead",
      "llamaindex first delta",
      "model time",
      "llamaindex overhead",
      "overhead ÷ llamaindex",
    ],
    rows,
    notes: [
      "Bound: 0 ms overhead. Model time is the union of the fake's busy intervals before the first delta (its own wait before its first token for the streamed call).",
      ...[...reasons].map((reason) => `ragsynth: ${reason}`),
    ],
    json: results,
  };
}
