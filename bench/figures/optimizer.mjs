// Figure: SentenceEmbeddingOptimizer with HashingEmbedder on a fixture corpus: token reduction at
// percentile 0.5 and at threshold 0.7, and sentences per second. ragsynth only (no peer figure).
import { sentences } from "../lib/fixtures.mjs";
import { NOT_BUILT, ragsynthExports } from "../lib/libs.mjs";
import { fmt } from "../lib/report.mjs";
import { interleave } from "../lib/stats.mjs";
import { errorCell } from "../lib/synth.mjs";
import { cl100kCount } from "../lib/tokens.mjs";

const SENTENCES = 300;
const PER_NODE = 15;
/** postprocessNodes calls per timed sample: one call takes only tens of ms. */
const REPEAT = 5;
const QUERY = "What happened to the primary coolant loop and the pressure valve in the reactor?";
/** Sentences that answer the query, planted every 37 sentences, as a real corpus would hold a few. */
const PLANTED = [
  "The primary coolant loop and the pressure valve in the reactor were isolated after the alarm.",
  "What happened to the primary coolant loop was a stuck pressure valve in the reactor.",
  "In the reactor, the pressure valve on the primary coolant loop failed twice.",
  "The reactor operators vented the primary coolant loop through the pressure valve.",
  "A cracked pressure valve drained the primary coolant loop of the reactor.",
  "The primary coolant loop pressure valve was replaced when the reactor cooled.",
  "Engineers traced the reactor alarm to the primary coolant loop and its pressure valve.",
  "The pressure valve in the primary coolant loop of the reactor was throttled.",
];

export async function optimizerFigure({ runs }) {
  const corpus = sentences(51, SENTENCES).map((s) => s.text);
  PLANTED.forEach((sentence, i) => {
    corpus[17 + i * 37] = sentence;
  });
  const nodeTexts = [];
  for (let i = 0; i < corpus.length; i += PER_NODE) nodeTexts.push(corpus.slice(i, i + PER_NODE).join(" "));
  const tokensBefore = nodeTexts.reduce((sum, text) => sum + cl100kCount(text), 0);
  const configs = [
    { name: "percentileCutoff 0.5", options: { percentileCutoff: 0.5 } },
    {
      name: "thresholdCutoff 0.7 (onEmpty: drop_node)",
      options: { thresholdCutoff: 0.7, onEmpty: "drop_node" },
    },
  ];
  const title = `SentenceEmbeddingOptimizer + HashingEmbedder (fitted on the corpus): ${SENTENCES} sentences in ${nodeTexts.length} nodes, ${fmt(tokensBefore)} tokens — median of ${runs}`;
  const headers = ["cutoff", "tokens after", "token reduction", "nodes kept", "ms", "sentences / s"];

  const lib = await ragsynthExports(["SentenceEmbeddingOptimizer", "HashingEmbedder", "TextNode"]);
  if (typeof lib === "string") {
    return {
      id: "optimizer",
      title,
      headers,
      rows: configs.map((config) => [config.name, NOT_BUILT, "—", "—", "—", "—"]),
      notes: [`ragsynth: ${lib}`],
      json: { error: lib },
    };
  }

  const embedModel = new lib.HashingEmbedder().fit(corpus);
  const nodes = nodeTexts.map((text, i) => ({ node: new lib.TextNode({ id: `n${i}`, text }), score: 1 }));
  const outcomes = {};
  const entrants = configs.map((config) => {
    const optimizer = new lib.SentenceEmbeddingOptimizer({ embedModel, ...config.options });
    return {
      name: config.name,
      fn: async () => {
        try {
          let event;
          let kept;
          for (let i = 0; i < REPEAT; i++) {
            kept = await optimizer.postprocessNodes(nodes, {
              query: QUERY,
              onEvent: (e) => {
                event = e;
              },
            });
          }
          outcomes[config.name] = { kept, event };
        } catch (error) {
          outcomes[config.name] = { error: errorCell(error) };
        }
      },
    };
  });
  const timings = await interleave(entrants, { runs, warmup: 1 });

  const results = {};
  const rows = configs.map((config) => {
    const outcome = outcomes[config.name];
    if (outcome.error) return [config.name, outcome.error, "—", "—", "—", "—"];
    const after = outcome.kept.reduce((sum, item) => sum + cl100kCount(item.node.text), 0);
    const ms = timings[config.name].median / REPEAT;
    const split = outcome.event?.detail?.sentencesEmbedded;
    results[config.name] = {
      tokensBefore,
      tokensAfter: after,
      reduction: 1 - after / tokensBefore,
      nodesKept: outcome.kept.length,
      ms,
      sentencesPerSecond: SENTENCES / (ms / 1000),
      sentencesEmbedded: split,
    };
    return [
      config.name,
      fmt(after),
      `${fmt(100 * (1 - after / tokensBefore), 1)} %`,
      `${outcome.kept.length} / ${nodes.length}`,
      fmt(ms, 1),
      fmt(SENTENCES / (ms / 1000)),
    ];
  });
  return {
    id: "optimizer",
    title,
    headers,
    rows,
    notes: [
      `Query: "${QUERY}"; ${PLANTED.length} sentences that answer it are planted in the synthetic corpus. contextBefore/After 1 (defaults). Tokens are cl100k of the node texts before and after.`,
      `ms is one postprocessNodes call (query embedding, sentence embedding, selection), timed over ${REPEAT} calls per sample; sentences / s = ${SENTENCES} ÷ that.`,
    ],
    json: results,
  };
}
