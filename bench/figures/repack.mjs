// Figure: PromptHelper.repack of N chunks of 500 cl100k tokens into a 4096-token window.
import { nodeTexts } from "../lib/fixtures.mjs";
import { loadPeer, NOT_BUILT, peerTokenizers, ragsynthExports } from "../lib/libs.mjs";
import { fmt, fmtRatio, target } from "../lib/report.mjs";
import { interleave, ratio } from "../lib/stats.mjs";
import { cl100kCount, cl100kEncode } from "../lib/tokens.mjs";

const HELPER = { contextWindow: 4096, numOutput: 256, chunkOverlapRatio: 0.1 };

export async function repackFigure({ quick, runs }) {
  const count = quick ? 50 : 2000;
  const texts = nodeTexts({ count, tokens: 500, seed: 11 });
  const warmTexts = texts.slice(0, 20);
  const joined = texts.join("\n\n");
  const totalTokens = cl100kCount(joined);

  const entrants = [];
  const outputs = {};
  const run = (name, fn) => {
    entrants.push({
      name,
      fn: () => {
        outputs[name] = fn(texts);
      },
      warm: () => fn(warmTexts),
    });
  };

  run("bound", (input) => cl100kEncode(input.join("\n\n")));
  run("count", (input) => cl100kCount(input.join("\n\n")));

  const ragsynth = await ragsynthExports(["PromptHelper", "DEFAULT_TEXT_QA_PROMPT"]);
  if (typeof ragsynth === "object") {
    const helper = new ragsynth.PromptHelper({ ...HELPER, tokenizer: "cl100k_base" });
    run("ragsynth", (input) => helper.repack(ragsynth.DEFAULT_TEXT_QA_PROMPT, input));
  }

  const peer = await loadPeer();
  const tokenizers = peerTokenizers();
  for (const [tokenizerName, tokenizer] of Object.entries(tokenizers)) {
    const helper = new peer.PromptHelper({ ...HELPER, tokenizer });
    run(`peer/${tokenizerName}`, (input) => helper.repack(peer.defaultTextQAPrompt, input));
  }

  for (const entrant of entrants) entrant.warm();
  const timings = await interleave(entrants, { runs, warmup: 0 });

  const ms = (name) => timings[name]?.median;
  const chunksOut = (name) => {
    const out = outputs[name];
    if (name === "bound" || name === "count" || !Array.isArray(out)) return "—";
    const largest = Math.max(
      ...out.map((chunk) => cl100kCount(typeof chunk === "string" ? chunk : chunk.text)),
    );
    return `${out.length} (≤${largest} tok)`;
  };
  const rows = [
    ["bound: one cl100k encode of the joined text", fmt(ms("bound"), 1), "—", "1.00×", "—"],
    [
      "for reference: one cl100k countTokens of the joined text",
      fmt(ms("count"), 1),
      "—",
      fmtRatio(ratio(ms("count"), ms("bound"))),
      "—",
    ],
    [
      "ragsynth (cl100k_base)",
      typeof ragsynth === "object" ? fmt(ms("ragsynth"), 1) : NOT_BUILT,
      chunksOut("ragsynth"),
      fmtRatio(ratio(ms("ragsynth"), ms("bound"))),
      "—",
    ],
    ...Object.keys(tokenizers).map((tokenizerName) => {
      const name = `peer/${tokenizerName}`;
      return [
        `llamaindex, ${tokenizerName === "js-tiktoken" ? "default tokenizer (js-tiktoken)" : "gpt-tokenizer 4 plugged in"}`,
        fmt(ms(name), 1),
        chunksOut(name),
        fmtRatio(ratio(ms(name), ms("bound"))),
        fmtRatio(ratio(ms("ragsynth"), ms(name))),
      ];
    }),
  ];

  const vsBound = ratio(ms("ragsynth"), ms("bound"));
  const speedup = ratio(ms("peer/js-tiktoken"), ms("ragsynth"));
  const built = typeof ragsynth === "object";
  return {
    id: "repack",
    title: `repack: ${fmt(count)} × 500 tokens (${fmt(totalTokens)} cl100k tokens), window 4096, numOutput 256, overlap 0.1 — median of ${runs}, ms`,
    headers: ["entrant", "ms", "chunks out", "÷ bound", "ragsynth ÷ this"],
    rows,
    notes: [
      "Each library repacks its own default text-QA template; the template is ~30 of ~4,000 tokens per chunk.",
      "Entrants run interleaved in rotating order; each was warmed once on 20 chunks.",
      "ragsynth's repack deliberately adds no overlap between packed chunks; llamaindex passes overlap 0.1 to its splitter.",
      ...(typeof ragsynth === "string" ? [`ragsynth: ${ragsynth}`] : []),
    ],
    targets: [
      target(
        "repack ≤ 1.5 × bound",
        "≤ 1.50×",
        built ? fmtRatio(vsBound) : "n/a",
        built ? vsBound <= 1.5 : null,
      ),
      target(
        "repack ≥ 20 × faster than llamaindex's default",
        "≥ 20×",
        built ? `${fmt(speedup, 1)}×` : "n/a",
        built ? speedup >= 20 : null,
      ),
    ],
    json: {
      count,
      totalTokens,
      timings,
      chunks: Object.fromEntries(Object.keys(outputs).map((k) => [k, chunksOut(k)])),
    },
  };
}
