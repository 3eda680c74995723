// Figure: tree_summarize over 200, 2,000 and 20,000 real-corpus nodes of ~300 tokens, window 4096, with a fake
// model of 50 ms per call. The floor is one cl100k encode of the input plus one latency per round.
import { readFileSync } from "node:fs";
import { coldSample, inputFile } from "../lib/cold.mjs";
import { answerFor, FakeModel } from "../lib/fake-llm.mjs";
import { queryOfTokens } from "../lib/fixtures.mjs";
import { loadRagsynth } from "../lib/libs.mjs";
import { realNodeTexts } from "../lib/real-text.mjs";
import { fmt, fmtRatio, target } from "../lib/report.mjs";
import { interleave, median, ratio } from "../lib/stats.mjs";
import { errorCell, peerSynthesizer, ragsynthSynthesizer } from "../lib/synth.mjs";
import { cl100kEncode } from "../lib/tokens.mjs";

const HELPER = { contextWindow: 4096, numOutput: 256, chunkOverlapRatio: 0.1 };
const LATENCY_MS = 50;
/** Enough for every round's calls at once (the linear-work goal assumes concurrency is not the limit). */
const WIDE = 4096;
const query = queryOfTokens(1, 10);

const VARIANTS = {
  default: {
    label: "ragsynth, default settings (adaptive concurrency)",
    make: (model) => ragsynthSynthesizer({ mode: "tree_summarize", model, helper: HELPER }),
  },
  wide: {
    label: `ragsynth, concurrency ${WIDE}`,
    make: (model) =>
      ragsynthSynthesizer({ mode: "tree_summarize", model, helper: HELPER, concurrency: WIDE }),
  },
  peer: {
    label: "llamaindex (Promise.all, unbounded)",
    make: (model) => peerSynthesizer({ mode: "tree_summarize", model, helper: HELPER }),
  },
};

/** One run: a fresh fake model and synthesizer (so the adaptive limiter starts fresh, as in a new process). */
async function runOnce(variant, texts) {
  const model = new FakeModel({ latencyMs: LATENCY_MS });
  const synthesizer = await VARIANTS[variant].make(model);
  if (typeof synthesizer === "string") return { model, error: synthesizer };
  const started = performance.now();
  try {
    await synthesizer.synthesize({ query, texts });
    return { model, ms: performance.now() - started };
  } catch (error) {
    return { model, ms: performance.now() - started, error: errorCell(error) };
  }
}

/** {@link runOnce}'s time and error only: the fake model and its prompts are dropped with this frame. */
async function timedRun(variant, texts) {
  const { ms, error } = await runOnce(variant, texts);
  return { ms, error };
}

/** Cold: ragsynth's modules loaded before the clock; rank table, first-seen pieces and the whole tree inside it. */
export const coldTasks = {
  async tree({ variant, input, answers }) {
    const texts = JSON.parse(readFileSync(input, "utf8"));
    for (let i = 0; i < answers; i++) answerFor(i);
    if (variant === "encode") {
      const started = performance.now();
      cl100kEncode(texts.join("\n\n"));
      return { ms: performance.now() - started };
    }
    await loadRagsynth();
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const { ms, error } = await timedRun(variant, texts);
    // Measured once the run's own frames are gone (a value just awaited can stay on the stack until then), so
    // what is left is what the library keeps: caches, loaded tables.
    await new Promise((resolve) => setTimeout(resolve, 0));
    global.gc?.();
    global.gc?.();
    return { ms, error, retainedMB: (process.memoryUsage().heapUsed - before) / 1e6 };
  },
};

async function measureSize(count, runs, quick) {
  const texts = await realNodeTexts({ count, tokens: 300 });
  const joined = texts.join("\n\n");
  const variants = ["default", "wide", ...(count <= 2000 ? ["peer"] : [])];
  const last = {};
  const entrants = [
    { name: "encode", fn: () => void cl100kEncode(joined) },
    ...variants.map((name) => ({
      name,
      fn: async () => {
        const outcome = await runOnce(name, texts);
        last[name] = outcome;
        return outcome.ms;
      },
    })),
  ];
  const warm = await interleave(entrants, { runs, warmup: 1 });
  const rounds = last.wide?.model.rounds() ?? last.default?.model.rounds();
  const answers = (last.wide?.model.calls.length ?? 0) + 10;
  const input = inputFile(texts);
  const coldRuns = quick ? [] : ["encode", "wide", "default"];
  const cold = {};
  const coldSamples = await interleave(
    coldRuns.map((variant) => ({
      name: variant,
      fn: () => {
        const sample = coldSample(import.meta.url, "tree", { variant, input, answers });
        cold[variant] ??= [];
        cold[variant].push(sample);
        return sample.ms;
      },
    })),
    { runs, warmup: 0 },
  );
  return { count, tokens: cl100kEncode(joined).length, warm, last, rounds, cold, coldSamples };
}

export async function treeFigure({ quick, runs }) {
  const sizes = quick ? [60] : [200, 2000, 20000];
  const results = [];
  for (const count of sizes) results.push(await measureSize(count, runs, quick));

  const rows = [];
  const targets = [];
  const json = {};
  for (const result of results) {
    const { count, warm, last, rounds, coldSamples, cold } = result;
    const roundsMs = (rounds?.rounds ?? Number.NaN) * LATENCY_MS;
    const floor = warm.encode.median + roundsMs;
    const coldFloor = coldSamples.encode ? coldSamples.encode.median + roundsMs : Number.NaN;
    json[count] = { tokens: result.tokens, rounds, floorMs: floor, warm, cold };
    for (const name of Object.keys(VARIANTS)) {
      const outcome = last[name];
      if (!outcome) continue;
      const wall = warm[name].median;
      const coldWall = coldSamples[name]?.median;
      const retained = cold[name] ? median(cold[name].map((s) => s.retainedMB)) : Number.NaN;
      rows.push([
        `${fmt(count)} nodes (${fmt(result.tokens)} tok): ${VARIANTS[name].label}`,
        outcome.error ?? fmt(wall, 1),
        fmtRatio(ratio(wall, floor)),
        `${outcome.model.calls.length} (${outcome.model.rounds().callsPerRound.join(" + ")})`,
        fmt(outcome.model.peakConcurrency),
        Number.isFinite(coldWall) ? fmt(coldWall, 1) : "—",
        Number.isFinite(coldWall) ? fmtRatio(ratio(coldWall, coldFloor)) : "—",
        Number.isFinite(retained) ? fmt(retained, 1) : "—",
      ]);
    }
    rows.push([
      `${fmt(count)} nodes: floor = one encode (${fmt(warm.encode.median, 1)} ms warm${coldSamples.encode ? `, ${fmt(coldSamples.encode.median, 1)} cold` : ""}) + ${rounds?.rounds} rounds × ${LATENCY_MS} ms`,
      fmt(floor, 1),
      "1.00×",
      "",
      "",
      Number.isFinite(coldFloor) ? fmt(coldFloor, 1) : "—",
      Number.isFinite(coldFloor) ? "1.00×" : "—",
      "",
    ]);
    const wideRatio = ratio(warm.wide?.median, floor);
    const linearGoal = count <= 200 ? 1.05 : 1.1;
    targets.push(
      target(
        `tree_summarize ${fmt(count)} nodes, concurrency ${WIDE}: wall ≤ ${linearGoal} × (one encode + rounds × latency)`,
        `≤ ${linearGoal.toFixed(2)}×`,
        fmtRatio(wideRatio),
        quick ? null : wideRatio <= linearGoal,
      ),
    );
    if (count <= 2000) {
      const defaultRatio = ratio(warm.default?.median, floor);
      const goal = count <= 200 ? 2 : 4;
      targets.push(
        target(
          `tree_summarize ${fmt(count)} nodes, default settings: wall ≤ ${goal} × floor (model without limits)`,
          `≤ ${goal.toFixed(2)}×`,
          fmtRatio(defaultRatio),
          quick ? null : defaultRatio <= goal,
        ),
      );
    }
  }
  return {
    id: "tree",
    title: `tree_summarize over real-corpus nodes of ~300 tokens, window 4096, numOutput 256, fake model ${LATENCY_MS} ms per call — median of ${runs}`,
    headers: [
      "case",
      "wall ms (warm)",
      "÷ floor",
      "calls (per round)",
      "peak concurrency",
      "cold ms",
      "cold ÷ cold floor",
      "heap kept after, MB (cold)",
    ],
    rows,
    notes: [
      "Floor: one gpt-tokenizer cl100k encode of the joined input plus one latency per round (rounds read from the prompts); ratios compare medians of this run.",
      "Cold: a fresh process per sample, ragsynth's modules loaded before the clock; the first call pays for the rank table and first-seen pieces. Heap kept: heapUsed after two full GCs, minus before the run, measured once the run's frame is gone (the fake model and its prompts dropped): what ragsynth keeps (rank table, piece-count cache).",
      "Default settings: adaptive concurrency, starting at 8 and growing by slow start (cap 64). llamaindex is not run at 20,000 nodes.",
    ],
    targets,
    json,
  };
}
