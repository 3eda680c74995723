// Running one synthesis in each library with the shared fake model, so every figure drives both the
// same way: same nodes, same helper settings, same answers, prompts counted by the fake.
import { peerLLM, ragsynthLLM } from "./fake-llm.mjs";
import { loadPeer, peerTokenizers, ragsynthExports } from "./libs.mjs";

/** The modes llamaindex 0.12.1 has (besides `multi_modal`, which is not a text mode). */
export const PEER_MODES = ["refine", "compact", "tree_summarize"];

/** ragsynth's modes, as the built package exports them (`RESPONSE_MODES`); a string when dist/ lacks them. */
export async function ragsynthModes() {
  const found = await ragsynthExports(["RESPONSE_MODES"]);
  return typeof found === "string" ? found : [...found.RESPONSE_MODES];
}

/**
 * A ragsynth synthesizer over `model`, or a string saying why it cannot be built yet.
 * `helper` is `{ contextWindow, numOutput, chunkOverlapRatio }`.
 */
export async function ragsynthSynthesizer({ mode, model, helper, concurrency, onEvent }) {
  const lib = await ragsynthExports(["PromptHelper", "getResponseSynthesizer", "TextNode"]);
  if (typeof lib === "string") return lib;
  const llm = ragsynthLLM(model, { contextWindow: helper.contextWindow, maxOutputTokens: helper.numOutput });
  const promptHelper = new lib.PromptHelper({ ...helper, tokenizer: "cl100k_base" });
  const options = { responseMode: mode, llm, promptHelper };
  if (concurrency !== undefined) options.concurrency = concurrency;
  if (onEvent !== undefined) options.onEvent = onEvent;
  const synthesizer = lib.getResponseSynthesizer(options);
  const toNodes = (texts) =>
    texts.map((text, i) => ({ node: new lib.TextNode({ text }), score: 1 - i / 1000 }));
  return {
    synthesize: async ({ query, texts }) =>
      String((await synthesizer.synthesize({ query, nodes: toNodes(texts) })).response),
    /** Resolves with `{ firstDeltaAt, text }` once the stream has ended. */
    stream: async ({ query, texts }) => {
      const { textStream, response } = synthesizer.stream({ query, nodes: toNodes(texts) });
      let firstDeltaAt = Number.NaN;
      let text = "";
      for await (const delta of textStream) {
        if (Number.isNaN(firstDeltaAt) && delta.length > 0) firstDeltaAt = performance.now();
        text += delta;
      }
      await response;
      return { firstDeltaAt, text };
    },
  };
}

/** A llamaindex synthesizer over `model`, counting with gpt-tokenizer 4 cl100k (as ragsynth does). */
export async function peerSynthesizer({ mode, model, helper }) {
  const peer = await loadPeer();
  const llm = peerLLM(model, { contextWindow: helper.contextWindow });
  const promptHelper = new peer.PromptHelper({ ...helper, tokenizer: peerTokenizers()["gpt-tokenizer"] });
  const synthesizer = peer.getResponseSynthesizer(mode, { llm, promptHelper });
  const toNodes = (texts) =>
    texts.map((text, i) => ({ node: new peer.TextNode({ text }), score: 1 - i / 1000 }));
  return {
    synthesize: async ({ query, texts }) =>
      String((await synthesizer.synthesize({ query, nodes: toNodes(texts) }, false)).message.content),
    stream: async ({ query, texts }) => {
      const chunks = await synthesizer.synthesize({ query, nodes: toNodes(texts) }, true);
      let firstDeltaAt = Number.NaN;
      let text = "";
      for await (const chunk of chunks) {
        const delta = chunk.delta ?? "";
        if (Number.isNaN(firstDeltaAt) && delta.length > 0) firstDeltaAt = performance.now();
        text += delta;
      }
      return { firstDeltaAt, text };
    },
  };
}

/** A short description of an error for a table cell. */
export function errorCell(error) {
  const name = error?.code ?? error?.name ?? "Error";
  const message = String(error?.message ?? error).split("\n")[0];
  return `error: ${name}: ${message.length > 60 ? `${message.slice(0, 57)}…` : message}`;
}
