import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PromptHelper } from "../budget/index.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { LLM } from "../llm/types.js";
import { DEFAULT_TEXT_QA_PROMPT_SEL } from "../prompt/default-prompts.js";
import { PromptTemplate } from "../prompt/prompt-template.js";
import { TextNode } from "../schema/text-node.js";
import { MockLLM } from "../testing/mock-llm.js";
import { collect, nodesOf, recordEvents } from "./fixtures.test.util.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";
import { RESPONSE_MODES } from "./types.js";

const llm = () => new MockLLM({ response: "answer" });

describe("getResponseSynthesizer", () => {
  it("rejects an unknown mode with a typed error that lists the valid ones", () => {
    const error = (() => {
      try {
        getResponseSynthesizer({ llm: llm(), responseMode: "summarize" as never });
      } catch (caught) {
        return caught;
      }
    })();
    expect(RagsynthError.isInstance(error, "unknown_mode")).toBe(true);
    expect((error as Error).message).toContain(
      'Unknown response mode "summarize". Expected one of "refine", "compact"',
    );
    expect((error as Error).message).toContain('"context_only"');
  });

  it("needs an llm for every mode that calls one, and none for no_text and context_only", () => {
    for (const responseMode of RESPONSE_MODES) {
      const build = () => getResponseSynthesizer({ responseMode });
      if (responseMode === "no_text" || responseMode === "context_only") expect(build).not.toThrow();
      else expect(build).toThrow(InvalidArgumentError);
    }
    expect(() => getResponseSynthesizer({ responseMode: "compact" })).toThrow(/no global Settings fallback/);
  });

  it("defaults to compact with LlamaIndex's prompts, by LlamaIndex's keys", () => {
    const synthesizer = getResponseSynthesizer({ llm: llm() });
    expect(synthesizer.mode).toBe("compact");
    expect(Object.keys(synthesizer.getPrompts())).toEqual([
      "text_qa_template",
      "refine_template",
      "chat_content_qa_template",
      "chat_content_refine_template",
    ]);
    expect(synthesizer.getPrompts().text_qa_template).toBe(DEFAULT_TEXT_QA_PROMPT_SEL);
    expect(
      Object.keys(getResponseSynthesizer({ llm: llm(), responseMode: "tree_summarize" }).getPrompts()),
    ).toEqual(["summary_template", "chat_content_summary_template"]);
    expect(getResponseSynthesizer({ responseMode: "no_text" }).getPrompts()).toEqual({});
  });

  it("uses updated prompts, and rejects unknown keys listing the known ones", async () => {
    const model = llm();
    const synthesizer = getResponseSynthesizer({ llm: model, responseMode: "simple_summarize" });
    synthesizer.updatePrompts({
      text_qa_template: new PromptTemplate({
        template: "C={context_str} Q={query_str}",
        promptType: "text_qa",
      }),
    });
    await synthesizer.synthesize({ query: "q", nodes: nodesOf("ctx") });
    expect(model.prompts).toEqual(["C=ctx Q=q"]);
    expect(() => synthesizer.updatePrompts({ refine_template: DEFAULT_TEXT_QA_PROMPT_SEL })).toThrow(
      /`prompts.refine_template` to be one of `text_qa_template`/,
    );
  });

  it("returns the nodes then the additional source nodes, with metadata by id, in every mode", async () => {
    const nodes = [{ node: new TextNode({ id: "a", text: "alpha", metadata: { page: 1 } }), score: 0.9 }];
    const additionalSourceNodes = [{ node: new TextNode({ id: "b", text: "beta", metadata: { page: 2 } }) }];
    for (const responseMode of RESPONSE_MODES) {
      const synthesizer = getResponseSynthesizer({ llm: llm(), responseMode });
      const result = await synthesizer.synthesize({ query: "q", nodes, additionalSourceNodes });
      expect(result.sourceNodes).toEqual([...nodes, ...additionalSourceNodes]);
      expect(result.metadata).toEqual({ a: { page: 1 }, b: { page: 2 } });
      const streaming = synthesizer.stream({ query: "q", nodes, additionalSourceNodes });
      expect(streaming.sourceNodes).toEqual([...nodes, ...additionalSourceNodes]);
      expect((await collect(streaming.textStream)).join("")).toBe(result.response);
      expect((await streaming.response).response).toBe(result.response);
    }
  });

  it("answers the empty response without calls when there are no nodes (except generation), streamed or not", async () => {
    const additionalSourceNodes = nodesOf("cited");
    for (const responseMode of RESPONSE_MODES.filter((mode) => mode !== "generation")) {
      const model = llm();
      const synthesizer = getResponseSynthesizer({
        llm: model,
        responseMode,
        emptyResponse: "Nothing found.",
      });
      const result = await synthesizer.synthesize({ query: "q", nodes: [], additionalSourceNodes });
      expect(result.response).toBe("Nothing found.");
      // LlamaIndex returns [] here; the caller's additional nodes are still sources.
      expect(result.sourceNodes).toEqual(additionalSourceNodes);
      const streaming = synthesizer.stream({ query: "q", nodes: [] });
      expect(await collect(streaming.textStream)).toEqual(["Nothing found."]);
      expect(model.calls).toHaveLength(0);
      expect(result.usage).toEqual({ llmCalls: 0, promptTokens: 0, completionTokens: 0, retries: 0 });
    }
  });

  it("no_text answers an empty string that prints as one (LlamaIndex prints None); context_only joins the chunks", async () => {
    const nodes = [{ node: new TextNode({ text: "a", metadata: { k: 0 } }) }, ...nodesOf("b")];
    const noText = await getResponseSynthesizer({ responseMode: "no_text" }).synthesize({
      query: "q",
      nodes,
    });
    expect(String(noText)).toBe("");
    expect(`${noText}`).toBe("");
    const contextOnly = await getResponseSynthesizer({ responseMode: "context_only" }).synthesize({
      query: "q",
      nodes,
    });
    expect(contextOnly.response).toBe("k: 0\n\na\n\nb");
  });

  it("builds the default budget from the model's metadata", async () => {
    const model = new MockLLM({ response: "ok", contextWindow: 1000, maxTokens: 77 });
    await getResponseSynthesizer({ llm: model, responseMode: "simple_summarize" }).synthesize({
      query: "q",
      nodes: nodesOf("x"),
    });
    expect(model.calls[0]?.options.maxTokens).toBe(77);
  });

  it("passes numOutput as maxTokens on every call of every mode", async () => {
    for (const responseMode of RESPONSE_MODES) {
      const model = new MockLLM({ response: "ok" });
      await getResponseSynthesizer({
        llm: model,
        responseMode,
        promptHelper: new PromptHelper({ numOutput: 99 }),
      }).synthesize({ query: "q", nodes: nodesOf("a", "b") });
      for (const call of model.calls) expect(call.options.maxTokens).toBe(99);
    }
  });
});

describe("getResponseSynthesizer: the llm argument", () => {
  it("rejects an options object where a model belongs, naming what a model needs, without echoing a key", () => {
    const options = { model: "gpt-4o-mini", apiKey: "sk-ragsynth-TEST-KEY-0123456789" };
    let caught: unknown;
    try {
      getResponseSynthesizer({ llm: options as unknown as LLM });
    } catch (error) {
      caught = error;
    }
    expect(RagsynthError.isInstance(caught, "invalid_argument")).toBe(true);
    expect((caught as Error).message).toMatch(/Expected `llm` to implement LLM/);
    expect((caught as Error).message).toMatch(/not its options object/);
    expect((caught as Error).message).not.toContain("sk-ragsynth-TEST-KEY-0123456789");
  });
});

describe("getResponseSynthesizer: templates", () => {
  it("warns (a warning event) when a text-QA template has no {query_str}, and still answers", async () => {
    const { events, onEvent } = recordEvents();
    const llm = new MockLLM({ response: "answer" });
    const result = await getResponseSynthesizer({
      llm,
      responseMode: "compact",
      textQaTemplate: new PromptTemplate({ template: "Context: {context_str}\nAnswer:" }),
      onEvent,
    }).synthesize({ query: "Why?", nodes: nodesOf("text") });
    expect(result.response).toBe("answer");
    const warnings = events.filter((event) => event.type === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: "template_without_query" });
    expect(warnings[0]?.type === "warning" && warnings[0].message).toMatch(
      /textQaTemplate has no \{query_str\}/,
    );
  });

  it("refuses a generation template without {query_str}, where the query is the whole prompt", () => {
    expect(() =>
      getResponseSynthesizer({
        llm: new MockLLM({ response: "answer" }),
        responseMode: "generation",
        simpleTemplate: new PromptTemplate({ template: "Say something." }),
      }),
    ).toThrow(/query_str/);
  });

  it("accepts templates copied from LlamaIndex with {{ }} escapes: literal braces, not variables", async () => {
    const llm = new MockLLM({ response: "answer" });
    await getResponseSynthesizer({
      llm,
      responseMode: "simple_summarize",
      textQaTemplate: new PromptTemplate({
        template: 'Context: {context_str}\nReply as {{"answer": "..."}} to {query_str}',
      }),
    }).synthesize({ query: "Why?", nodes: nodesOf("text") });
    expect(llm.prompts).toEqual(['Context: text\nReply as {"answer": "..."} to Why?']);
  });
});

describe("getResponseSynthesizer: structured output", () => {
  it("String(response) with an output schema is JSON.stringify(object), not the model's wording", async () => {
    const schema = z.object({ answer: z.string() });
    for (const responseMode of ["compact", "generation", "tree_summarize", "simple_summarize"] as const) {
      const response = await getResponseSynthesizer({
        llm: new MockLLM({ response: 'Sure! ```json\n{"answer": "42"}\n```' }),
        responseMode,
        outputSchema: schema,
      }).synthesize({ query: "q", nodes: nodesOf("text") });
      expect(response.object).toEqual({ answer: "42" });
      expect(String(response), responseMode).toBe('{"answer":"42"}');
      expect(response.response, responseMode).toBe('{"answer":"42"}');
    }
  });

  it("rejects LlamaIndex's program_factory (and other LlamaIndex-only options) instead of ignoring it", () => {
    const make = (extra: Record<string, unknown>) => () =>
      getResponseSynthesizer({ llm: llm(), ...(extra as object) });
    expect(make({ programFactory: () => ({}) })).toThrow(InvalidArgumentError);
    expect(make({ programFactory: () => ({}) })).toThrow(/outputSchema .*createSynthesizer/);
    expect(make({ program_factory: () => ({}) })).toThrow(/program factory/);
    expect(make({ output_cls: {} })).toThrow(/outputSchema/);
  });
});
