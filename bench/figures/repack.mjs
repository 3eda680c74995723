// Figure: PromptHelper.repack of ~1M cl100k tokens in 500-token nodes into a 4096-token window, on the real
// corpus (cold and warm) and on the synthetic fixture (a second, labelled column).
import { coldSample, inputFile } from "../lib/cold.mjs";
import { nodeTexts } from "../lib/fixtures.mjs";
import { loadPeer, NOT_BUILT, ragsynthExports } from "../lib/libs.mjs";
import { realCorpusSources, realNodeTexts } from "../lib/real-text.mjs";
import { fmt, fmtRatio, target } from "../lib/report.mjs";
import { interleave, ratio } from "../lib/stats.mjs";

const HELPER = { contextWindow: 4096, numOutput: 256, chunkOverlapRatio: 0.1 };
const ENTRANTS = ["bound", "count", "ragsynth", "peer/gpt-tokenizer", "peer/js-tiktoken"];
const LABELS = {
  bound: "bound: one cl100k encode of the joined text",
  count: "for reference: one cl100k countTokens of the joined text",
  ragsynth: "ragsynth (cl100k_base)",
  "peer/gpt-tokenizer": "llamaindex, gpt-tokenizer 4 plugged in",
  "peer/js-tiktoken": "llamaindex, default tokenizer (js-tiktoken)",
};

/**
 * `(texts) => output` for one entrant. Tokenizer modules are imported here, so a cold sample that times
 * `make` + the first call pays for loading the rank table wherever the entrant loads it.
 */
async function make(name) {
  if (name === "bound" || name === "count") {
    const { cl100kCount, cl100kEncode } = await import("../lib/tokens.mjs");
    return name === "bound"
      ? (texts) => cl100kEncode(texts.join("\n\n"))
      : (texts) => cl100kCount(texts.join("\n\n"));
  }
  if (name === "ragsynth") {
    const lib = await ragsynthExports(["PromptHelper", "DEFAULT_TEXT_QA_PROMPT"]);
    if (typeof lib === "string") throw new Error(lib);
    const helper = new lib.PromptHelper({ ...HELPER, tokenizer: "cl100k_base" });
    return (texts) => helper.repack(lib.DEFAULT_TEXT_QA_PROMPT, texts);
  }
  const peer = await loadPeer();
  const { peerTokenizers } = await import("../lib/libs.mjs");
  const tokenizer = peerTokenizers()[name.slice("peer/".length)];
  const helper = new peer.PromptHelper({ ...HELPER, tokenizer });
  return (texts) => helper.repack(peer.defaultTextQAPrompt, texts);
}

/** Cold samples: library modules imported untimed (except tokenizers), then the first repack timed. */
export const coldTasks = {
  async repack({ entrant, input }) {
    const { readFileSync } = await import("node:fs");
    const texts = JSON.parse(readFileSync(input, "utf8"));
    // ragsynth's own modules and the peer's load before the clock starts; rank tables do not.
    if (entrant === "ragsynth") await (await import("../lib/libs.mjs")).loadRagsynth();
    if (entrant.startsWith("peer/")) await loadPeer();
    const started = performance.now();
    const fn = await make(entrant);
    const out = fn(texts);
    return { ms: performance.now() - started, chunks: Array.isArray(out) ? out.length : undefined };
  },
};

async function measure(texts, names, runs, coldNames) {
  const fns = {};
  for (const name of names) fns[name] = await make(name);
  for (const name of names) fns[name](texts.slice(0, 20));
  const outputs = {};
  const warm = await interleave(
    names.map((name) => ({
      name,
      fn: () => {
        outputs[name] = fns[name](texts);
      },
    })),
    { runs, warmup: 0 },
  );
  let coldTimes = {};
  if (coldNames.length > 0) {
    const input = inputFile(texts);
    const url = import.meta.url;
    coldTimes = await interleave(
      coldNames.map((name) => ({ name, fn: () => coldSample(url, "repack", { entrant: name, input }).ms })),
      { runs, warmup: 0 },
    );
  }
  return { warm, cold: coldTimes, outputs };
}

export async function repackFigure({ quick, runs }) {
  const count = quick ? 50 : 2000;
  const built = typeof (await ragsynthExports(["PromptHelper"])) === "object";
  // Quick (CI): no js-tiktoken (seconds per sample) and cold samples of the bound and ragsynth only.
  const names = ENTRANTS.filter(
    (name) => (built || name !== "ragsynth") && !(quick && name === "peer/js-tiktoken"),
  );
  // js-tiktoken takes ~15 s per 1M tokens: timed on the real corpus only (warm and cold).
  const synthNames = names.filter((name) => name !== "peer/js-tiktoken");
  const real = await realNodeTexts({ count, tokens: 500 });
  const synthetic = nodeTexts({ count, tokens: 500, seed: 11 });
  const { cl100kCount } = await import("../lib/tokens.mjs");
  const realTokens = cl100kCount(real.join("\n\n"));
  const syntheticTokens = cl100kCount(synthetic.join("\n\n"));
  const pieces = await realPieceStats(real);
  // Cold samples of js-tiktoken would add ~15 s each; its warm time (a lower bound on its cold one) is shown.
  const coldOf = (list) =>
    quick
      ? list.filter((name) => name === "bound" || name === "ragsynth")
      : list.filter((name) => name !== "peer/js-tiktoken");
  const r = await measure(real, names, runs, coldOf(names));
  const s = await measure(synthetic, synthNames, runs, coldOf(synthNames));

  const ms = (m, kind, name) => m[kind][name]?.median;
  const rows = names.map((name) => [
    LABELS[name],
    ms(r, "cold", name) === undefined ? "not timed" : fmt(ms(r, "cold", name), 1),
    fmtRatio(ratio(ms(r, "cold", name), ms(r, "cold", "bound"))),
    fmt(ms(r, "warm", name), 1),
    fmtRatio(ratio(ms(r, "warm", name), ms(r, "warm", "bound"))),
    synthNames.includes(name) && ms(s, "cold", name) !== undefined
      ? fmt(ms(s, "cold", name), 1)
      : "not timed",
    synthNames.includes(name) ? fmt(ms(s, "warm", name), 1) : "not timed",
    synthNames.includes(name) ? fmtRatio(ratio(ms(s, "warm", name), ms(s, "warm", "bound"))) : "—",
  ]);
  const coldVsBound = ratio(ms(r, "cold", "ragsynth"), ms(r, "cold", "bound"));
  const warmVsBound = ratio(ms(r, "warm", "ragsynth"), ms(r, "warm", "bound"));
  const speedupWarm = ratio(ms(r, "warm", "peer/js-tiktoken"), ms(r, "warm", "ragsynth"));
  // js-tiktoken's warm time stands in for its cold one (which can only be longer).
  const speedupCold = ratio(ms(r, "warm", "peer/js-tiktoken"), ms(r, "cold", "ragsynth"));
  const chunks = (m, name) => (Array.isArray(m.outputs[name]) ? m.outputs[name].length : "—");
  return {
    id: "repack",
    title: `repack: ${fmt(count)} nodes × ~500 tokens, window 4096, numOutput 256 — real corpus ${fmt(realTokens)} cl100k tokens, synthetic ${fmt(syntheticTokens)}; median of ${runs}, ms`,
    headers: [
      "entrant",
      "real, cold",
      "÷ bound (cold)",
      "real, warm",
      "÷ bound (warm)",
      "synthetic, cold",
      "synthetic, warm",
      "÷ bound (synthetic warm)",
    ],
    rows,
    notes: [
      `Real corpus: ${pieces.distinct.toLocaleString("en-US")} distinct cl100k pre-tokenizer pieces in these ${fmt(realTokens)} tokens (${fmt(pieces.per1M)} per 1M); synthetic fixture: ${(await realPieceStats(synthetic)).distinct.toLocaleString("en-US")}. Corpus (${realTokens > 400_000 ? "large" : "small"}, bench/lib/corpus.mjs) packages: ${await realCorpusSources(count * 500)}.`,
      "Cold: a fresh process per sample; the library's modules are imported before the clock starts, the rank table is loaded inside it (wherever the entrant loads it) and every piece is met for the first time. Warm: in-process, after one repack of 20 nodes; interleaved medians.",
      `Chunks out (real): ragsynth ${chunks(r, "ragsynth")}, llamaindex ${chunks(r, "peer/gpt-tokenizer")}. ragsynth adds no overlap between packed chunks; llamaindex passes overlap 0.1 to its splitter.`,
      ...(built ? [] : [`ragsynth: ${NOT_BUILT}`]),
    ],
    targets: [
      target(
        "repack (real corpus, cold) ≤ 1.5 × one encode",
        "≤ 1.50×",
        fmtRatio(coldVsBound),
        built ? coldVsBound <= 1.5 : null,
      ),
      target(
        "repack (real corpus, warm) ≤ 1.5 × one encode",
        "≤ 1.50×",
        fmtRatio(warmVsBound),
        built ? warmVsBound <= 1.5 : null,
      ),
      target(
        "repack ≥ 20 × faster than llamaindex's default (real corpus; warm / ragsynth cold vs its warm)",
        "≥ 20×",
        `${fmt(speedupWarm, 1)}× / ${fmt(speedupCold, 1)}×`,
        built ? speedupWarm >= 20 && speedupCold >= 20 : null,
      ),
    ],
    json: {
      count,
      realTokens,
      syntheticTokens,
      pieces,
      real: { warm: r.warm, cold: r.cold },
      synthetic: { warm: s.warm, cold: s.cold },
    },
  };
}

/** Distinct cl100k pre-tokenizer pieces of the joined texts, and per 1M tokens. */
async function realPieceStats(texts) {
  const { CL100K_TOKEN_SPLIT_REGEX } = await import("gpt-tokenizer-4/encodingParams/constants");
  const { cl100kCount } = await import("../lib/tokens.mjs");
  const distinct = new Set();
  let tokens = 0;
  for (const text of texts) {
    tokens += cl100kCount(text);
    for (const match of text.matchAll(new RegExp(CL100K_TOKEN_SPLIT_REGEX))) distinct.add(match[0]);
  }
  return { distinct: distinct.size, per1M: (distinct.size * 1e6) / tokens };
}
