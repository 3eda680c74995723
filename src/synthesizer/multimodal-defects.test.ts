import { describe, expect, it } from "vitest";
import { ChatPromptHelper, PromptHelper } from "../budget/index.js";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { CHAT_CONTENT_QA_PROMPT } from "../prompt/default-prompts.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { TextNode } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { rejectionOf } from "../util/thrown-by.test.util.js";
import { createSynthesizer } from "./create-synthesizer.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";

// The two defects issue 27 found where the message path had forked from the text path.
const vision = () => new MockLLM({ response: "An answer.", isChatModel: true, imageInput: "pixels" });
/** OpenAI's rule: a low-detail image is 85 tokens; a 1024×1024 high-detail one 765. */
const small = () => new ImageNode({ id: "small", image: pngOfSize(64, 64), detail: "low" });
const big = () => new ImageNode({ id: "big", image: pngOfSize(1024, 1024), detail: "high" });

async function overflowOf(run: Promise<unknown>): Promise<ContextOverflowError> {
  const error = await rejectionOf(run);
  expect(ContextOverflowError.isInstance(error)).toBe(true);
  return error as ContextOverflowError;
}

/** A window that leaves `room` tokens of content beside the chat content QA prompt (numOutput 0, padding 5). */
function windowWithRoom(llm: MockLLM, room: number): PromptHelper {
  const prompt = new ChatPromptHelper().countPrompt(
    CHAT_CONTENT_QA_PROMPT.partialFormat({ query_str: "What is shown?" }),
    { llm },
  ).total;
  return new PromptHelper({ contextWindow: prompt + 5 + room, numOutput: 0 });
}

describe("simple_summarize with an oversized image after a small one", () => {
  it("names the oversized image, never a negative room, and suggests detail low only for a high-detail image", async () => {
    const llm = vision();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "simple_summarize",
      promptHelper: windowWithRoom(llm, 400),
    });
    const error = await overflowOf(
      synthesizer.synthesize({
        query: "What is shown?",
        nodes: [
          { node: new TextNode({ text: "A caption." }), score: 1 },
          { node: small(), score: 0.9 },
          { node: big(), score: 0.8 },
        ],
      }),
    );
    expect(error.message).toContain("node big");
    expect(error.message).toContain("765 tokens");
    expect(error.message).not.toContain("node small");
    expect(error.message).not.toMatch(/Only -\d/);
    expect(error.message).toContain("Only 400 tokens");
    expect(error.message).toContain('detail "low"');
    expect(llm.calls).toHaveLength(0);
  });

  it("for images that each fit but not together, names them together, without a negative room", async () => {
    const llm = vision();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "simple_summarize",
      promptHelper: windowWithRoom(llm, 800),
    });
    const error = await overflowOf(
      synthesizer.synthesize({
        query: "What is shown?",
        nodes: [
          { node: small(), score: 1 },
          { node: big(), score: 0.9 },
        ],
      }),
    );
    expect(error.message).toContain("2 images");
    expect(error.message).toContain("850 tokens");
    expect(error.message).not.toMatch(/Only -\d/);
    expect(llm.calls).toHaveLength(0);
  });

  it("does not suggest detail low for an image that is already low", async () => {
    const llm = vision();
    const synthesizer = getResponseSynthesizer({
      llm,
      responseMode: "simple_summarize",
      promptHelper: windowWithRoom(llm, 40),
    });
    const error = await overflowOf(
      synthesizer.synthesize({ query: "What is shown?", nodes: [{ node: small(), score: 1 }] }),
    );
    expect(error.message).toContain("node small");
    expect(error.message).toContain("85 tokens");
    expect(error.message).not.toContain('detail "low"');
    expect(llm.calls).toHaveLength(0);
  });
});

describe("a custom synthesizer without runMessages", () => {
  it("refuses image nodes before any call, naming runMessages, instead of dropping the image", async () => {
    const llm = vision();
    const synthesizer = createSynthesizer({
      mode: "my_mode",
      llm,
      prompts: { text_qa_template: new PromptTemplate({ template: "{context_str}\n{query_str}" }) },
      run: async (context) =>
        (
          await context.stream(
            context.prompts.text_qa_template as PromptTemplate,
            { query_str: context.query, context_str: context.chunks.join("\n\n") },
            { step: { kind: "custom", name: "my_mode" } },
          )
        ).text,
    });
    const run = synthesizer.synthesize({
      query: "What is shown?",
      nodes: [
        { node: new TextNode({ text: "A caption." }), score: 1 },
        { node: small(), score: 0.9 },
      ],
    });
    const error = await run.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as InvalidArgumentError).parameter).toBe("runMessages");
    expect((error as Error).message).toContain("my_mode");
    expect((error as Error).message).toContain("node small");
    expect(llm.calls).toHaveLength(0);
  });

  it("still runs text nodes as before", async () => {
    const llm = vision();
    const synthesizer = createSynthesizer({
      mode: "my_mode",
      llm,
      run: async () => "done",
    });
    const response = await synthesizer.synthesize({
      query: "q",
      nodes: [{ node: new TextNode({ text: "A caption." }), score: 1 }],
    });
    expect(String(response)).toBe("done");
  });
});
