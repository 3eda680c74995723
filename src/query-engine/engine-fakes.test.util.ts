// Shared test fixtures (not shipped: the package excludes `*.test.*`).
import type { RagsynthEvent } from "../events/events.js";
import type { NodePostprocessor } from "../postprocessor/types.js";
import type { Retriever } from "../retrieval/retriever.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import type { ResponseSynthesizer, SynthesisResponse, SynthesizeOptions } from "../synthesizer/types.js";

/** Test fakes for the engine: every call goes to one log, so tests can assert the order of steps. */
export function createEngineFakes() {
  const log: string[] = [];
  const events: RagsynthEvent[] = [];
  const retrieved: NodeWithScore[] = [
    { node: new TextNode({ id: "a", text: "alpha", metadata: { file: "a.md" } }), score: 0.9 },
    { node: new TextNode({ id: "b", text: "beta" }), score: 0.5 },
    { node: new TextNode({ id: "c", text: "gamma" }), score: 0.1 },
  ];
  const retrieverCalls: { query: string; signal?: AbortSignal }[] = [];
  const retriever: Retriever = {
    async retrieve(options) {
      retrieverCalls.push(options);
      log.push(`retrieve:${options.query}`);
      return retrieved;
    },
  };
  const postprocessorCalls: {
    name: string;
    nodes: string[];
    query: string;
    signal: AbortSignal | undefined;
  }[] = [];
  const dropLast = (name: string): NodePostprocessor => ({
    name,
    async postprocessNodes(nodes, { query, signal }) {
      postprocessorCalls.push({ name, nodes: nodes.map((item) => item.node.id), query, signal });
      log.push(`postprocess:${name}`);
      return nodes.slice(0, -1);
    },
  });
  const synthesizeCalls: SynthesizeOptions[] = [];
  const respond = (options: SynthesizeOptions): SynthesisResponse => ({
    response: `answer to ${options.query}`,
    sourceNodes: options.nodes,
    metadata: Object.fromEntries(options.nodes.map(({ node }) => [node.id, node.metadata])),
    usage: { llmCalls: 1, promptTokens: 0, completionTokens: 0, retries: 0 },
    toString: () => `answer to ${options.query}`,
  });
  const synthesizer: ResponseSynthesizer = {
    mode: "fake",
    getPrompts: () => ({}),
    updatePrompts: () => {},
    async synthesize(options) {
      synthesizeCalls.push(options);
      log.push(`synthesize:${options.nodes.map((item) => item.node.id).join(",")}`);
      return respond(options);
    },
    stream(options) {
      synthesizeCalls.push(options);
      log.push(`stream:${options.nodes.map((item) => item.node.id).join(",")}`);
      let finish: () => void = () => {};
      const done = new Promise<void>((resolve) => {
        finish = resolve;
      });
      async function* textStream() {
        yield "answer ";
        yield `to ${options.query}`;
        finish();
      }
      return {
        sourceNodes: options.nodes,
        textStream: textStream(),
        response: done.then(() => respond(options)),
      };
    },
  };
  return {
    log,
    events,
    onEvent: (event: RagsynthEvent) => events.push(event),
    retrieved,
    retriever,
    retrieverCalls,
    dropLast,
    postprocessorCalls,
    synthesizer,
    synthesizeCalls,
  };
}

export const ids = (nodes: readonly NodeWithScore[]) => nodes.map((item) => item.node.id);
