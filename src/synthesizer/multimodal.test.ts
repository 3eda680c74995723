import { describe, expect, it } from "vitest";
import { ChatPromptHelper, PromptHelper } from "../budget/index.js";
import { DEFAULT_PADDING } from "../budget/prompt-helper.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { RagsynthEvent } from "../events/events.js";
import { CHAT_CONTENT_QA_PROMPT } from "../prompt/default-prompts.js";
import { ChatPromptTemplate } from "../prompt/prompt-template.js";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { TextNode } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const multimodalNodes = () => [
  { node: new TextNode({ text: "context information" }), score: 1 },
  { node: new ImageNode({ image: PNG_1PX }), score: 0.9 },
];
const vision = (options: ConstructorParameters<typeof MockLLM>[0] = {}) =>
  new MockLLM({ maxTokens: 10, isChatModel: true, imageInput: "pixels", ...options });
const blockTypes = (llm: MockLLM, call: number) =>
  llm.calls[call]?.messages?.at(-1)?.blocks?.map((block) => block.type);

describe("multimodal synthesis (upstream test_compact_and_accumulate multimodal case)", () => {
  it("sends [text, image] in one call, and splits it into a text call and an image call in a tight window", async () => {
    const imageTokens = { kind: "fixed" as const, tokensPerImage: 3 };
    const llm = vision({ imageTokens });
    const roomy = getResponseSynthesizer({ llm, responseMode: "compact_accumulate" });
    const first = await roomy.synthesize({ query: "test", nodes: multimodalNodes() });
    expect(llm.calls).toHaveLength(1);
    expect(llm.calls[0]?.messages).toHaveLength(2);
    expect(blockTypes(llm, 0)).toEqual(["text", "text", "image", "text"]);
    expect(String(first)).toBe(`Response 1: ${Array(10).fill("text").join(" ")}`);

    const promptTokens = new ChatPromptHelper({ imageTokens }).countPrompt(
      CHAT_CONTENT_QA_PROMPT.partialFormat({ query_str: "test" }),
      { llm },
    ).total;
    const tight = getResponseSynthesizer({
      llm,
      responseMode: "compact_accumulate",
      promptHelper: new PromptHelper({ contextWindow: promptTokens + DEFAULT_PADDING + 3, numOutput: 0 }),
    });
    const second = await tight.synthesize({ query: "test", nodes: multimodalNodes() });
    expect(llm.calls).toHaveLength(3);
    expect(blockTypes(llm, 1)).toEqual(["text", "text", "text"]);
    expect(llm.calls[1]?.messages?.at(-1)?.blocks?.[1]).toEqual({
      type: "text",
      text: "context information",
    });
    expect(blockTypes(llm, 2)).toEqual(["text", "image", "text"]);
    expect(String(second)).toBe(
      [1, 2]
        .map((n) => `Response ${n}: ${Array(10).fill("text").join(" ")}`)
        .join("\n---------------------\n"),
    );
  });
});

describe("the message path", () => {
  it("rejects a model that cannot take images before any call, naming what its metadata says", async () => {
    const llm = new MockLLM({ response: "x", isChatModel: true });
    const synthesizer = getResponseSynthesizer({ llm, responseMode: "refine" });
    const run = synthesizer.synthesize({ query: "q", nodes: multimodalNodes() });
    await expect(run).rejects.toThrow(InvalidArgumentError);
    await expect(run).rejects.toThrow(/imageInput unset/);
    expect(llm.calls).toHaveLength(0);
    const completion = new MockLLM({ response: "x", imageInput: "pixels" });
    await expect(
      getResponseSynthesizer({ llm: completion, responseMode: "tree_summarize" }).synthesize({
        query: "q",
        nodes: multimodalNodes(),
      }),
    ).rejects.toThrow(/isChatModel false/);
  });

  it("no_text and context_only return the nodes, images included, without calls; generation ignores them", async () => {
    const nodes = multimodalNodes();
    const noText = await getResponseSynthesizer({ responseMode: "no_text" }).synthesize({
      query: "q",
      nodes,
    });
    expect(noText.sourceNodes.map(({ node }) => node)).toEqual(nodes.map(({ node }) => node));
    const contextOnly = await getResponseSynthesizer({ responseMode: "context_only" }).synthesize({
      query: "q",
      nodes,
    });
    expect(contextOnly.sourceNodes[1]?.node).toBeInstanceOf(ImageNode);
    const llm = new MockLLM({ response: "generated" });
    const generated = await getResponseSynthesizer({ llm, responseMode: "generation" }).synthesize({
      query: "q",
      nodes,
    });
    expect(String(generated)).toBe("generated");
    expect(llm.calls[0]?.prompt).toBe("q");
  });

  it("uses an overriding content template, with the blocks where its variable is", async () => {
    const llm = vision({ response: "ok" });
    const chatContentQaTemplate = new ChatPromptTemplate({
      messages: [{ role: "user", content: "Look: {context_str} Q: {query_str}" }],
    });
    await getResponseSynthesizer({ llm, responseMode: "compact", chatContentQaTemplate }).synthesize({
      query: "what?",
      nodes: multimodalNodes(),
    });
    expect(llm.calls[0]?.messages?.[0]?.blocks).toEqual([
      { type: "text", text: "Look: " },
      { type: "text", text: "context information" },
      expect.objectContaining({ type: "image", mediaType: "image/png", width: 1, height: 1 }),
      { type: "text", text: " Q: what?" },
    ]);
    expect(() =>
      getResponseSynthesizer({
        llm,
        chatContentQaTemplate: new ChatPromptTemplate({
          messages: [{ role: "user", content: "{query_str}" }],
        }),
      }),
    ).toThrow(/chatContentQaTemplate/);
  });

  it("tree_summarize: leaves carry images, the levels above are text summaries", async () => {
    const llm = vision({ response: "a short summary", imageTokens: { kind: "fixed", tokensPerImage: 400 } });
    const nodes = [0, 1, 2].map((index) => ({
      node: new ImageNode({ image: pngOfSize(64, 64), text: `img ${index}` }),
    }));
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "tree_summarize",
      promptHelper: new PromptHelper({ contextWindow: 1000, numOutput: 100 }),
    });
    await synthesizer.synthesize({ query: "q", nodes });
    expect(llm.calls).toHaveLength(4);
    for (const call of llm.calls.slice(0, 3)) {
      expect(call.messages?.at(-1)?.blocks?.filter((block) => block.type === "image")).toHaveLength(1);
    }
    const last = llm.calls[3]?.messages?.at(-1);
    expect(last?.blocks).toBeUndefined();
    expect(last?.content).toContain("a short summary\n\na short summary\n\na short summary");
  });

  it("names an image too big for any call, before any call; states unknown sizes as assumptions", async () => {
    const llm = vision({ response: "ok" });
    const nodes = [{ node: new ImageNode({ imageUrl: "https://example.com/scan.png", text: "scan" }) }];
    const small = getResponseSynthesizer({
      llm,
      responseMode: "refine",
      promptHelper: new PromptHelper({ contextWindow: 1200, numOutput: 64 }),
    });
    await expect(small.synthesize({ query: "q", nodes })).rejects.toThrow(ContextOverflowError);
    await expect(small.synthesize({ query: "q", nodes })).rejects.toThrow(
      /image https:\/\/example\.com\/scan\.png \(node .+\), 1445 tokens/,
    );
    expect(llm.calls).toHaveLength(0);
    const events: RagsynthEvent[] = [];
    const roomy = getResponseSynthesizer({
      llm,
      responseMode: "refine",
      onEvent: (event) => events.push(event),
    });
    const response = await roomy.synthesize({ query: "q", nodes });
    expect(response.assumptions).toEqual([
      `image tokens counted by OpenAI's rule: model "mock" states no rule`,
      "an image of unknown size counts as 1445 tokens (OpenAI's high-detail maximum)",
    ]);
    const start = events.find((event) => event.type === "llm-call-start");
    expect(start?.type === "llm-call-start" && start.contextTokens).toBe(1445 + 1);
  });
});

describe("ExtractiveLLM on the message path", () => {
  it("answers from captions only, says so in its metadata, and invents no description", async () => {
    const { ExtractiveLLM } = await import("../extractive/extractive-llm.js");
    const llm = new ExtractiveLLM();
    expect(llm.metadata.imageInput).toBe("captions");
    const nodes = [
      { node: new TextNode({ text: "The report covers 2026." }) },
      { node: new ImageNode({ image: PNG_1PX, text: "The revenue chart shows growth in every quarter." }) },
      { node: new ImageNode({ image: PNG_1PX }) },
    ];
    const response = await getResponseSynthesizer({ llm, responseMode: "compact" }).synthesize({
      query: "What does the revenue chart show?",
      nodes,
    });
    expect(String(response)).toContain("The revenue chart shows growth in every quarter.");
    expect(String(response)).not.toContain("[image]");
  });
});

describe("streaming and abort on the message path", () => {
  it("streams the final answer, and an abort stops the run with an AbortError before later calls", async () => {
    const llm = vision({ response: "Streamed answer.", imageTokens: { kind: "fixed", tokensPerImage: 3 } });
    const streaming = getResponseSynthesizer({ llm, responseMode: "compact" }).stream({
      query: "q",
      nodes: multimodalNodes(),
    });
    let streamed = "";
    for await (const delta of streaming.textStream) streamed += delta;
    expect(streamed).toBe("Streamed answer.");
    expect((await streaming.response).response).toBe(streamed);
    expect(llm.calls[0]?.stream).toBe(true);

    const controller = new AbortController();
    const slow = vision({
      response: () => {
        controller.abort();
        return "first";
      },
    });
    const nodes = [0, 1, 2].map((index) => ({
      node: new ImageNode({ image: PNG_1PX, text: `image ${index}` }),
    }));
    const run = getResponseSynthesizer({ llm: slow, responseMode: "refine" }).synthesize({
      query: "q",
      nodes,
      signal: controller.signal,
    });
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(slow.calls).toHaveLength(1);
  });
});
