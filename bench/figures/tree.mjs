// Figure: tree_summarize over 200 nodes with a fake model of 50 ms latency: wall time, peak concurrency.
import { FakeModel } from "../lib/fake-llm.mjs";
import { nodeTexts, queryOfTokens } from "../lib/fixtures.mjs";
import { NOT_BUILT } from "../lib/libs.mjs";
import { fmt, fmtRatio, target } from "../lib/report.mjs";
import { interleave, ratio } from "../lib/stats.mjs";
import { errorCell, peerSynthesizer, ragsynthSynthesizer } from "../lib/synth.mjs";

const HELPER = { contextWindow: 4096, numOutput: 256, chunkOverlapRatio: 0.1 };
const LATENCY_MS = 50;
/** A limit above the leaf count, so the ideal (rounds × latency) is reachable while staying bounded. */
const WIDE = 32;

export async function treeFigure({ quick, runs }) {
  const count = quick ? 60 : 200;
  const texts = nodeTexts({ count, tokens: 300, seed: 31 });
  const query = queryOfTokens(1, 10);

  const variants = [
    {
      name: `ragsynth, concurrency ${WIDE}`,
      limit: WIDE,
      make: (model) =>
        ragsynthSynthesizer({ mode: "tree_summarize", model, helper: HELPER, concurrency: WIDE }),
    },
    {
      name: "ragsynth, default concurrency (4)",
      limit: 4,
      make: (model) => ragsynthSynthesizer({ mode: "tree_summarize", model, helper: HELPER }),
    },
    {
      name: "llamaindex (Promise.all, unbounded)",
      limit: Number.POSITIVE_INFINITY,
      make: (model) => peerSynthesizer({ mode: "tree_summarize", model, helper: HELPER }),
    },
  ];

  const last = {};
  const entrants = [];
  for (const variant of variants) {
    const probe = await variant.make(new FakeModel());
    if (typeof probe === "string") {
      last[variant.name] = { error: NOT_BUILT, reason: probe };
      continue;
    }
    entrants.push({
      name: variant.name,
      fn: async () => {
        const model = new FakeModel({ latencyMs: LATENCY_MS });
        const synthesizer = await variant.make(model);
        try {
          await synthesizer.synthesize({ query, texts });
          last[variant.name] = { model };
        } catch (error) {
          last[variant.name] = { model, error: errorCell(error), reason: String(error?.stack ?? error) };
        }
      },
    });
  }
  const timings = await interleave(entrants, { runs, warmup: 1 });

  const results = {};
  const rows = [];
  for (const variant of variants) {
    const outcome = last[variant.name];
    if (!outcome?.model) {
      rows.push([variant.name, outcome?.error ?? NOT_BUILT, "—", "—", "—", "—", "—", "—"]);
      results[variant.name] = { error: outcome?.reason };
      continue;
    }
    const { rounds, callsPerRound } = outcome.model.rounds();
    const wall = timings[variant.name].median;
    const ideal = rounds * LATENCY_MS;
    const waves =
      callsPerRound.reduce(
        (sum, calls) => sum + (calls === 0 ? 0 : Math.ceil(calls / Math.min(variant.limit, calls))),
        0,
      ) * LATENCY_MS;
    results[variant.name] = {
      wallMs: wall,
      samples: timings[variant.name].samples,
      calls: outcome.model.calls.length,
      callsPerRound,
      rounds,
      peakConcurrency: outcome.model.peakConcurrency,
      limit: variant.limit,
      idealMs: ideal,
      waveBoundMs: waves,
      error: outcome.error,
    };
    rows.push([
      variant.name,
      outcome.error ? outcome.error : fmt(wall, 1),
      `${outcome.model.calls.length} (${callsPerRound.join(" + ")})`,
      fmt(outcome.model.peakConcurrency),
      fmt(ideal),
      fmtRatio(ratio(wall, ideal)),
      fmt(waves),
      fmtRatio(ratio(wall, waves)),
    ]);
  }
  const base = (name) => results[name];
  const wide = base(variants[0].name);
  const narrow = base(variants[1].name);
  const peer = base(variants[2].name);
  const known = (r) => r && !r.error && Number.isFinite(r.wallMs);
  if (known(wide) && known(peer)) {
    rows.push([
      `ragsynth (${WIDE}) ÷ llamaindex`,
      fmtRatio(ratio(wide.wallMs, peer.wallMs)),
      "",
      "",
      "",
      "",
      "",
      "",
    ]);
  }

  return {
    id: "tree",
    title: `tree_summarize: ${count} × 300 tokens, window 4096, numOutput 256, fake model ${LATENCY_MS} ms per call — median of ${runs}`,
    headers: [
      "entrant",
      "wall ms",
      "calls (per round)",
      "peak concurrency",
      "rounds × latency",
      "÷ rounds × latency",
      "Σ⌈calls/limit⌉ × latency",
      "÷ that",
    ],
    rows,
    notes: [
      "Rounds are read from the prompts: a call whose prompt holds an earlier answer is one level above it.",
      `With a limit below a round's calls, no library can beat Σ⌈calls/limit⌉ × latency; ${WIDE} is above the leaf count, so the ideal is rounds × latency.`,
      ...new Set(
        Object.values(last)
          .filter((r) => r?.reason)
          .map((r) => `ragsynth: ${r.reason.split("\n")[0]}`),
      ),
    ],
    targets: [
      target(
        `tree_summarize wall ≤ 1.1 × rounds × latency, concurrency bounded (ragsynth, limit ${WIDE})`,
        `≤ 1.10×, peak ≤ ${WIDE}`,
        known(wide) ? `${fmtRatio(ratio(wide.wallMs, wide.idealMs))}, peak ${wide.peakConcurrency}` : "n/a",
        known(wide) ? wide.wallMs <= 1.1 * wide.idealMs && wide.peakConcurrency <= WIDE : null,
      ),
      target(
        "tree_summarize default limit: wall ≤ 1.1 × Σ⌈calls/4⌉ × latency, peak ≤ 4",
        "≤ 1.10×, peak ≤ 4",
        known(narrow)
          ? `${fmtRatio(ratio(narrow.wallMs, narrow.waveBoundMs))}, peak ${narrow.peakConcurrency}`
          : "n/a",
        known(narrow) ? narrow.wallMs <= 1.1 * narrow.waveBoundMs && narrow.peakConcurrency <= 4 : null,
      ),
    ],
    json: results,
  };
}
