import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { DEFAULT_PADDING } from "../budget/prompt-helper.js";
import type { RagsynthEvent } from "../events/events.js";
import { CHAT_CONTENT_QA_PROMPT } from "../prompt/default-prompts.js";
import { ImageNode } from "../schema/image-node.js";
import { TextNode } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { nodesOf, recordEvents, words } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

type Start = Extract<RagsynthEvent, { type: "llm-call-start" }>;
type Mode =
  | "compact"
  | "refine"
  | "tree_summarize"
  | "accumulate"
  | "compact_accumulate"
  | "simple_summarize";

// Every word of node i is `n<i>w<k>`, so the nodes a context holds can be read off its text: an oracle
// independent of what the packer records. Node i's id is `n<i+1>` (nodesOf).
const NODE_COUNT = 9;
const nodes = nodesOf(...Array.from({ length: NODE_COUNT }, (_, index) => words(70, `n${index}w`)));

function nodesIn(context: string): string[] {
  const seen = [...context.matchAll(/\bn(\d+)w\d+\b/g)].map((match) => `n${Number(match[1]) + 1}`);
  return [...new Set(seen)];
}

async function run(mode: Mode): Promise<Start[]> {
  let calls = 0;
  const llm = new MockLLM({
    contextWindow: 420,
    response: () => {
      calls += 1;
      return `answer ${calls}: ${words(8, "a")}`;
    },
  });
  const { events, onEvent } = recordEvents();
  const synthesizer = getResponseSynthesizer({
    llm,
    responseMode: mode,
    promptHelper: new PromptHelper({ contextWindow: 420, numOutput: 48 }),
    concurrency: 3,
    onEvent,
  });
  await synthesizer.synthesize({ query: "What do the words say?", nodes });
  return events.flatMap((event) => (event.type === "llm-call-start" ? [event] : []));
}

describe("each call records the nodes the packer put in it, by id", () => {
  for (const mode of ["compact", "refine", "tree_summarize", "accumulate", "compact_accumulate"] as const) {
    it(`${mode}: every call's nodeIds are exactly the nodes its context holds, and together they cover every node`, async () => {
      const starts = await run(mode);
      const leaves = starts.filter((start) => start.step.kind !== "tree" || start.step.level === 0);
      expect(leaves.length).toBeGreaterThan(1);
      for (const start of leaves) expect(start.nodeIds).toEqual(nodesIn(start.context ?? ""));
      // Packed, a call holds several nodes (compact, tree), or one each (refine, accumulate).
      const perCall = leaves.map((start) => start.nodeIds?.length ?? 0);
      if (mode === "refine" || mode === "accumulate") expect(Math.max(...perCall)).toBe(1);
      else expect(Math.max(...perCall)).toBeGreaterThan(1);
      expect(new Set(leaves.flatMap((start) => start.nodeIds ?? []))).toEqual(
        new Set(nodes.map(({ node }) => node.id)),
      );
    });
  }

  it("simple_summarize: the one call names the nodes it kept before the cut, not the ones cut off", async () => {
    const [start, ...rest] = await run("simple_summarize");
    expect(rest).toEqual([]);
    expect(start?.nodeIds).toEqual(nodesIn(start?.context ?? ""));
    expect(start?.nodeIds?.length).toBeLessThan(NODE_COUNT);
  });

  it("tree_summarize: a level above reads the calls of the level below (inputCallIds), each once, in order", async () => {
    const starts = await run("tree_summarize");
    const level = (value: number) =>
      starts.filter((start) => start.step.kind === "tree" && start.step.level === value);
    expect(level(1).length).toBeGreaterThan(0);
    for (let value = 1; level(value).length > 0; value += 1) {
      const below = level(value - 1).map((start) => start.callId);
      const read = level(value).flatMap((start) => start.inputCallIds ?? []);
      expect(new Set(read)).toEqual(new Set(below));
      expect(read).toHaveLength(below.length);
      for (const start of level(value)) expect(start.nodeIds).toBeUndefined();
    }
  });

  it("refine: each step after the first reads the call that wrote the answer so far", async () => {
    const starts = await run("refine");
    expect(starts[0]?.inputCallIds).toBeUndefined();
    for (const [index, start] of starts.entries()) {
      if (index === 0) continue;
      expect(start.inputCallIds).toEqual([starts[index - 1]?.callId]);
    }
  });
});

describe("with images, each call names the nodes whose blocks the content packer put in it", () => {
  const PNG_1PX =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
  const imageTokens = { kind: "fixed" as const, tokensPerImage: 3 };
  const multimodal = () => [
    { node: new TextNode({ id: "text-1", text: "context information" }), score: 1 },
    { node: new ImageNode({ id: "image-1", image: PNG_1PX }), score: 0.9 },
  ];
  const startsOf = async (promptHelper?: PromptHelper) => {
    const { events, onEvent } = recordEvents();
    const llm = new MockLLM({ maxTokens: 10, isChatModel: true, imageInput: "pixels", imageTokens });
    await getResponseSynthesizer({
      llm,
      responseMode: "compact_accumulate",
      onEvent,
      ...(promptHelper ? { promptHelper } : {}),
    }).synthesize({ query: "test", nodes: multimodal() });
    return events.flatMap((event) => (event.type === "llm-call-start" ? [event.nodeIds] : []));
  };

  it("one call holding the text and the image names both; split by a tight window, one each", async () => {
    expect(await startsOf()).toEqual([["text-1", "image-1"]]);
    const llm = new MockLLM({ isChatModel: true, imageInput: "pixels", imageTokens });
    const promptTokens = new PromptHelper({ imageTokens }).countContentPrompt(
      CHAT_CONTENT_QA_PROMPT.partialFormat({ query_str: "test" }),
      { llm },
    ).total;
    const tight = new PromptHelper({ contextWindow: promptTokens + DEFAULT_PADDING + 3, numOutput: 0 });
    expect(await startsOf(tight)).toEqual([["text-1"], ["image-1"]]);
  });
});
