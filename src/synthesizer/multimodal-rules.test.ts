import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/index.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { TextNode } from "../schema/text-node.js";
import type { MockLLMOptions } from "../testing/mock-llm.js";
import { MockLLM } from "../testing/mock-llm.js";
import { recordEvents } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

// The rules the text side had alone before the corridors were one (issue 27), checked on runs with images.
const vision = (options: MockLLMOptions) =>
  new MockLLM({
    isChatModel: true,
    imageInput: "pixels",
    imageTokens: { kind: "fixed", tokensPerImage: 3 },
    ...options,
  });
const words = (count: number, stem = "w") => Array.from({ length: count }, (_, i) => `${stem}${i}`).join(" ");
const withImage = (text: string) => [
  { node: new ImageNode({ id: "picture", image: pngOfSize(8, 8) }), score: 1 },
  { node: new TextNode({ id: "notes", text }), score: 0.9 },
];
const imageCalls = (llm: MockLLM) =>
  llm.calls.filter((call) =>
    call.messages?.some((message) => message.blocks?.some((b) => b.type === "image")),
  );

describe("the text side's rules hold for images", () => {
  it("an overflow after the first call names the answer so far and says to lower numOutput", async () => {
    const llm = vision({ response: words(600, "a") });
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: new PromptHelper({ contextWindow: 500, numOutput: 0 }),
    });
    const error = await synthesizer
      .synthesize({ query: "What is shown?", nodes: withImage(words(1500)) })
      .catch((caught: unknown) => caught);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/existing answer \(\d+ tokens\)/);
    expect((error as Error).message).toMatch(/Lower numOutput/);
    expect(llm.calls).toHaveLength(1);
    expect(imageCalls(llm)).toHaveLength(1);
  });

  // Found by the multimodal budget property (seed 2038460640): the image fit beside the QA prompt and beside the
  // refine prompt with a short answer, but not beside an answer of numOutput tokens, which the model then wrote.
  const wideStrip = () => [
    { node: new TextNode({ id: "before", text: "alpha" }) },
    {
      node: new ImageNode({ id: "strip", image: pngOfSize(1537, 16, { headerOnly: true }), detail: "high" }),
    },
    { node: new TextNode({ id: "after", text: "alpha" }) },
  ];
  const answerOf = (tokens: number) => () => Array.from({ length: tokens }, () => "text").join(" ");

  it("refuses before the first call an image a refine step may not have room for beside an answer of numOutput tokens", async () => {
    for (const reply of [answerOf(163), answerOf(1)]) {
      const llm = new MockLLM({
        contextWindow: 1200,
        isChatModel: true,
        imageInput: "pixels",
        response: reply,
      });
      const error = await getResponseSynthesizer({
        llm,
        responseMode: "refine",
        promptHelper: new PromptHelper({ contextWindow: 1200, numOutput: 163 }),
      })
        .synthesize({ query: "What do the figures show?", nodes: wideStrip() })
        .catch((caught: unknown) => caught);
      expect(ContextOverflowError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/node strip\), 765 tokens, in a refine step/);
      expect((error as Error).message).toMatch(/up to numOutput 163 tokens/);
      expect(llm.calls).toHaveLength(0);
    }
  });

  it("does not hold the first step's images to the refine step's room", async () => {
    // compact packs all three nodes into the QA step: no refine step, so the same image is sent.
    const llm = new MockLLM({
      contextWindow: 1200,
      isChatModel: true,
      imageInput: "pixels",
      response: answerOf(163),
    });
    await getResponseSynthesizer({
      llm,
      responseMode: "compact",
      promptHelper: new PromptHelper({ contextWindow: 1200, numOutput: 163 }),
    }).synthesize({ query: "What do the figures show?", nodes: wideStrip() });
    expect(llm.calls).toHaveLength(1);
    expect(imageCalls(llm)).toHaveLength(1);
  });

  it("warns before the first call when numOutput is over half the window", async () => {
    const llm = vision({ response: "A picture." });
    const { events, onEvent } = recordEvents();
    await getResponseSynthesizer({
      llm,
      responseMode: "refine",
      promptHelper: new PromptHelper({ contextWindow: 4096, numOutput: 2100 }),
      onEvent,
    }).synthesize({ query: "What is shown?", nodes: withImage("A caption.") });
    const warning = events.findIndex((event) => event.type === "warning");
    expect(events[warning]).toMatchObject({ code: "large_num_output" });
    expect(warning).toBeLessThan(events.findIndex((event) => event.type === "llm-call-start"));
    expect(imageCalls(llm)).toHaveLength(1);
  });

  it("structured answer filtering works on a run with images (it was refused)", async () => {
    const llm = vision({
      streamBy: "token",
      response: ({ options }) =>
        options.templateVariables?.existing_answer === undefined
          ? JSON.stringify({ query_satisfied: true, answer: "A black square." })
          : JSON.stringify({ query_satisfied: false, answer: "lorem ipsum ".repeat(30) }),
    });
    const { events, onEvent } = recordEvents();
    const result = await getResponseSynthesizer({
      llm,
      responseMode: "refine",
      structuredAnswerFiltering: true,
      onEvent,
    }).synthesize({ query: "What is shown?", nodes: withImage("A caption.") });
    expect(result.response).toBe("A black square.");
    const ends = events.filter((event) => event.type === "llm-call-end");
    expect(ends.map((end) => end.querySatisfied)).toEqual([true, false]);
    expect(imageCalls(llm)).toHaveLength(1);
  });
});
