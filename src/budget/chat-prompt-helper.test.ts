import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { ContextOverflowError } from "../errors/context-overflow-error.js";
import { CHAT_CONTENT_QA_PROMPT, CHAT_CONTENT_REFINE_PROMPT } from "../prompt/default-prompts.js";
import { countPromptTokens, renderPrompt } from "../prompt/render-prompt.js";
import type { ContentBlock, ImageBlock } from "../schema/content-block.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { ChatPromptHelper } from "./chat-prompt-helper.js";
import { withImageDimensions } from "./image-dimensions.js";
import { DEFAULT_PADDING, PromptHelper } from "./prompt-helper.js";

const chat = { metadata: { isChatModel: true } };
const query = { variables: { query_str: "test" }, llm: chat };
const image: ImageBlock = { type: "image", data: pngOfSize(1, 1), mediaType: "image/png" };
const text = (value: string): ContentBlock => ({ type: "text", text: value });

function helper(contextWindow: number, tokensPerImage?: number) {
  return new ChatPromptHelper({
    promptHelper: new PromptHelper({ contextWindow, numOutput: 0, chunkOverlapRatio: 0 }),
    ...(tokensPerImage === undefined ? {} : { imageTokens: { kind: "fixed" as const, tokensPerImage } }),
  });
}

describe("ChatPromptHelper", () => {
  it("counts a chunk's prompt as the sum of the empty prompt and its blocks, exactly as rendered", () => {
    const chatHelper = helper(8000);
    const blocks = [text("context information"), { ...image, width: 1024, height: 1024 }, text("more text")];
    const rendered = renderPrompt({
      prompt: CHAT_CONTENT_QA_PROMPT,
      variables: { query_str: "test" },
      llm: chat,
      content: { variable: "context_str", blocks },
    });
    const user = rendered.kind === "chat" ? rendered.messages[1] : undefined;
    expect(user?.blocks?.map((block) => block.type)).toEqual(["text", "text", "image", "text", "text"]);
    expect(user?.content).toContain("context information\n\n[image]\n\nmore text");
    const sent = countPromptTokens(rendered, chatHelper.promptHelper.tokenizer, {
      countImage: (block) => chatHelper.countImage(block),
    }).total;
    expect(sent).toBe(
      chatHelper.countPrompt(CHAT_CONTENT_QA_PROMPT, query).total + chatHelper.countBlocks(blocks),
    );
    expect(chatHelper.countBlocks(blocks)).toBe(765 + 2 + 2);
  });

  it("splits a [text, image] group that does not fit into a text chunk and an image chunk (upstream's case)", () => {
    // Upstream test_compact_and_accumulate multimodal: window = empty prompt + padding + 3, numOutput 0.
    const promptTokens = helper(8000, 3).countPrompt(CHAT_CONTENT_QA_PROMPT, query).total;
    const blocks = [text("context information"), image];
    expect(
      helper(3900, 3)
        .repack(CHAT_CONTENT_QA_PROMPT, blocks, query)
        .map((c) => c.blocks),
    ).toEqual([blocks]);
    const tight = helper(promptTokens + DEFAULT_PADDING + 3, 3).repack(CHAT_CONTENT_QA_PROMPT, blocks, query);
    expect(tight.map((chunk) => chunk.blocks)).toEqual([[text("context information")], [image]]);
    expect(tight.map((chunk) => chunk.tokens)).toEqual([2, 3]);
  });

  it("cuts text but never an image, and keeps order", () => {
    const words = Array.from({ length: 60 }, (_, index) => `w${index}`).join(" ");
    const chatHelper = helper(400, 50);
    const available = chatHelper.getAvailableContextSize(CHAT_CONTENT_QA_PROMPT, query);
    const blocks = [text(words), image, text(words), image];
    const chunks = chatHelper.repack(CHAT_CONTENT_QA_PROMPT, blocks, query);
    for (const chunk of chunks) {
      expect(chunk.tokens).toBeLessThanOrEqual(available);
      expect(chunk.tokens).toBe(chatHelper.countBlocks(chunk.blocks));
    }
    const flat = chunks.flatMap((chunk) => chunk.blocks);
    expect(flat.filter((block) => block.type === "image")).toHaveLength(2);
    const joined = flat.map((block) => (block.type === "text" ? block.text : "<img>")).join(" ");
    expect(joined.replace(/\s+/g, " ")).toBe(`${words} <img> ${words} <img>`);
  });

  it("names an image that cannot fit even alone, with its tokens, before anything is sent", () => {
    const chatHelper = helper(600);
    const big = { ...image, path: "docs/chart.png", data: undefined, width: 2048, height: 2048 };
    const run = () =>
      chatHelper.repack(CHAT_CONTENT_REFINE_PROMPT, [text("a"), big], {
        ...query,
        variables: { query_str: "q", existing_answer: "" },
        contextVariable: "context_msg",
      });
    expect(run).toThrow(ContextOverflowError);
    expect(run).toThrow(/The image docs\/chart\.png, 765 tokens, with its prompt/);
  });

  it("states what it assumed: unknown sizes", () => {
    const chatHelper = helper(8000);
    expect(chatHelper.assumptionsFor([{ type: "image", url: "https://x/a.png" }, text("t")])).toEqual([
      "an image of unknown size counts as 1445 tokens (OpenAI's high-detail maximum)",
    ]);
    expect(chatHelper.assumptionsFor([{ ...image, width: 10, height: 10 }])).toEqual([]);
  });
});

describe("withImageDimensions", () => {
  it("reads width, height and media type from bytes, data URLs and file headers", async () => {
    const bytes = pngOfSize(8000, 3000, { headerOnly: true });
    expect(await withImageDimensions({ type: "image", data: bytes })).toMatchObject({
      width: 8000,
      height: 3000,
      mediaType: "image/png",
    });
    const url = `data:image/png;base64,${Buffer.from(pngOfSize(20, 10)).toString("base64")}`;
    expect(await withImageDimensions({ type: "image", url })).toMatchObject({ width: 20, height: 10 });
    const dir = mkdtempSync(join(tmpdir(), "ragsynth-img-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "a.png"), pngOfSize(640, 480));
    expect(await withImageDimensions({ type: "image", path: join(dir, "a.png") })).toMatchObject({
      width: 640,
      height: 480,
    });
    const remote = { type: "image" as const, url: "https://example.com/a.png" };
    expect(await withImageDimensions(remote)).toBe(remote);
    await expect(withImageDimensions({ type: "image", path: join(dir, "missing.png") })).rejects.toThrow(
      "`image.path`",
    );
  });
});
