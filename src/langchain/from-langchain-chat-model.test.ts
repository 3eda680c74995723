import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { FakeChatModel, FakeListChatModel } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { DEFAULT_CONTEXT_WINDOW } from "../llm/types.js";
import { TextNode } from "../schema/text-node.js";
import { getResponseSynthesizer } from "../synthesizer/get-response-synthesizer.js";
import { fromLangChainChatModel } from "./from-langchain-chat-model.js";

// exactOptionalPropertyTypes narrows the fields type of the default message structure to usage_metadata?: undefined.
type AIMessageFields = ConstructorParameters<typeof AIMessage>[0] & object;

const usage = { input_tokens: 42, output_tokens: 7, total_tokens: 49 };

/** A real BaseChatModel (LangChain's own invoke/stream machinery) whose provider reports usage, as ChatOpenAI does. */
class UsageReportingChatModel extends BaseChatModel {
  _llmType() {
    return "usage-reporting";
  }
  async _generate(): Promise<ChatResult> {
    return {
      generations: [
        {
          text: "Paris",
          message: new AIMessage({ content: "Paris", usage_metadata: usage } as AIMessageFields),
        },
      ],
    };
  }
  override async *_streamResponseChunks() {
    yield new ChatGenerationChunk({ text: "Par", message: new AIMessageChunk({ content: "Par" }) });
    yield new ChatGenerationChunk({
      text: "is",
      message: new AIMessageChunk({ content: "is", usage_metadata: usage } as AIMessageFields),
    });
  }
}

const nodes = [{ node: new TextNode({ text: "Paris is the capital of France." }), score: 0.9 }];

describe("fromLangChainChatModel (real @langchain/core fakes)", () => {
  it("answers a synthesis through invoke, and the model received ragsynth's packed prompt", async () => {
    // FakeChatModel echoes the messages it got, so the answer shows what reached the LangChain model.
    const llm = fromLangChainChatModel(new FakeChatModel({}), { contextWindow: 4096 });
    const response = await getResponseSynthesizer({ llm, responseMode: "compact" }).synthesize({
      query: "What is the capital of France?",
      nodes,
    });
    expect(response.response).toContain("Paris is the capital of France.");
    expect(response.response).toContain("What is the capital of France?");
    expect(response.usage.llmCalls).toBe(1);
  });

  it("streams LangChain's chunks as text deltas", async () => {
    const llm = fromLangChainChatModel(new FakeListChatModel({ responses: ["Paris."] }), {
      contextWindow: 4096,
    });
    const streaming = getResponseSynthesizer({ llm, responseMode: "compact" }).stream({
      query: "Capital?",
      nodes,
    });
    const deltas: string[] = [];
    for await (const delta of streaming.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1); // FakeListChatModel streams one character at a time
    expect(deltas.join("")).toBe("Paris.");
    expect((await streaming.response).response).toBe("Paris.");
  });

  it("reports usage_metadata as usage, for invoke and for streams", async () => {
    const llm = fromLangChainChatModel(new UsageReportingChatModel({}));
    const result = await llm.chat([{ role: "user", content: "Capital?" }]);
    expect(result).toEqual({ text: "Paris", usage: { promptTokens: 42, completionTokens: 7 } });

    const reported: unknown[] = [];
    const deltas: string[] = [];
    for await (const delta of llm.streamComplete("Capital?", { onUsage: (u) => reported.push(u) }))
      deltas.push(delta);
    expect(deltas).toEqual(["Par", "is"]);
    expect(reported).toEqual([{ promptTokens: 42, completionTokens: 7 }]);
  });

  it("passes the abort signal: an aborted call rejects with an AbortError", async () => {
    const llm = fromLangChainChatModel(new FakeListChatModel({ responses: ["slow answer"], sleep: 20 }));
    const controller = new AbortController();
    const pending = llm.complete("Capital?", { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });

    const stream = llm.streamComplete("Capital?", { signal: AbortSignal.abort() });
    await expect(async () => {
      for await (const _ of stream);
    }).rejects.toMatchObject({ name: "AbortError" });
  });

  it("takes the context window and output limit from the model's profile", async () => {
    class ProfiledModel extends FakeListChatModel {
      override get profile() {
        return { maxInputTokens: 8000, maxOutputTokens: 500 };
      }
    }
    const llm = fromLangChainChatModel(new ProfiledModel({ responses: ["x"] }));
    expect(llm.metadata).toMatchObject({ contextWindow: 8000, maxOutputTokens: 500, isChatModel: true });
    expect(llm.metadata.assumptions).toBeUndefined();
  });

  it("states the assumed context window when the model has no profile, and an explicit one wins", () => {
    const unknown = fromLangChainChatModel(new FakeListChatModel({ responses: ["x"] }));
    expect(unknown.metadata.contextWindow).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(unknown.metadata.assumptions?.[0]).toMatch(/contextWindow 3900 assumed .*pass contextWindow/);

    const explicit = fromLangChainChatModel(new FakeListChatModel({ responses: ["x"] }), {
      contextWindow: 16_000,
      modelId: "gpt-4o-mini",
    });
    expect(explicit.metadata).toMatchObject({ contextWindow: 16_000, model: "gpt-4o-mini" });
    expect(explicit.metadata.maxOutputTokens).toBe(16_384); // from ragsynth's model table
    expect(explicit.metadata.assumptions).toBeUndefined();
  });

  it("rejects something that is not a chat model with a typed error saying what to pass", () => {
    expect(() => fromLangChainChatModel({} as never)).toThrow(
      /LangChain chat model .*invoke\(\) and stream\(\)/,
    );
    try {
      fromLangChainChatModel(null as never);
    } catch (error) {
      expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
    }
  });
});
