import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { JsonSchemaFormat, LLMCallOptions } from "../llm/types.js";
import {
  CHAT_REFINE_PROMPT,
  DEFAULT_REFINE_PROMPT,
  DEFAULT_TEXT_QA_PROMPT,
} from "../prompt/default-prompts.js";
import { MockEmbedding } from "../testing/mock-embedding.js";
import { CONTEXT, FRANCE, QUERY, qa, structured } from "./extractive-fixtures.test.util.js";
import { ExtractiveLLM } from "./extractive-llm.js";

const refine = (
  query_str: string,
  existing_answer: string,
  context_msg: string,
  extra: LLMCallOptions = {},
) => ({
  templateVariables: { query_str, existing_answer, context_msg },
  promptType: "refine",
  ...extra,
});

describe("ExtractiveLLM", () => {
  const llm = new ExtractiveLLM();
  const prompt = DEFAULT_TEXT_QA_PROMPT.format({ query_str: QUERY, context_str: CONTEXT });

  it("says plainly that it is extractive, with a realistic budget", () => {
    expect(llm.metadata).toEqual({
      model: "extractive",
      kind: "extractive",
      isChatModel: false,
      contextWindow: 4096,
      maxOutputTokens: 256,
      structuredOutput: "json_schema",
      imageInput: "captions",
      imageTokens: { kind: "fixed", tokensPerImage: 0 },
      tokenizer: "cl100k_base",
    });
    expect(new ExtractiveLLM({ contextWindow: 8192, maxOutputTokens: 512 }).metadata).toMatchObject({
      contextWindow: 8192,
      maxOutputTokens: 512,
    });
  });

  it("answers with the relevant sentence and leaves out irrelevant ones", async () => {
    const { text } = await llm.complete(prompt, qa(QUERY, CONTEXT));
    expect(text).toBe(FRANCE);
  });

  it("keeps at most maxSentences, best first, then returns them in document order", async () => {
    const context =
      "France borders Spain. The weather is mild. Paris is the capital of France. The capital has museums.";
    const { text } = await llm.complete("", qa(QUERY, context));
    expect(text).toBe("France borders Spain. Paris is the capital of France. The capital has museums.");
    const one = await new ExtractiveLLM({ maxSentences: 1 }).complete("", qa(QUERY, context));
    expect(one.text).toBe(FRANCE);
  });

  it("answers a Chinese query from a Chinese context", async () => {
    const context = "北京是中国的首都。巴黎是法国的首都。熊猫喜欢吃竹子。";
    const { text } = await llm.complete("", qa("法国的首都是哪里？", context));
    expect(text).toContain("巴黎是法国的首都。");
    expect(text).not.toContain("熊猫");
    const best = await new ExtractiveLLM({ maxSentences: 1 }).complete("", qa("法国的首都是哪里？", context));
    expect(best.text).toBe("巴黎是法国的首都。");
  });

  it("returns an empty answer when no sentence matches the query", async () => {
    expect((await llm.complete("", qa("Who painted the Mona Lisa?", CONTEXT))).text).toBe("");
    expect(
      (await llm.complete("", { templateVariables: { query_str: "hi" }, promptType: "simple_input" })).text,
    ).toBe("");
  });

  it("summarises by centrality when there is no query", async () => {
    const context = "Cats sleep a lot. Cats purr when happy. Dogs bark. Cats and dogs can be friends.";
    const { text } = await new ExtractiveLLM({ maxSentences: 2 }).complete("", {
      templateVariables: { context_str: context },
      promptType: "summary",
    });
    expect(text.split(". ")).toHaveLength(2);
    expect(text).toContain("Cats and dogs can be friends.");
  });

  describe("refine", () => {
    it("merges the existing answer with new sentences, without duplicates", async () => {
      const context = `${FRANCE} The capital of France has the Louvre. Bananas are yellow.`;
      const { text } = await llm.complete("", refine(QUERY, FRANCE, context));
      expect(text).toBe(`${FRANCE} The capital of France has the Louvre.`);
      expect(text.split(FRANCE)).toHaveLength(2);
    });

    it("keeps the best maxSentences overall", async () => {
      const merged = await new ExtractiveLLM({ maxSentences: 2 }).complete(
        "",
        refine(
          QUERY,
          "France is in Europe. Paris is the capital of France.",
          "The capital of France is Paris, in France.",
        ),
      );
      expect(merged.text).toBe("Paris is the capital of France. The capital of France is Paris, in France.");
    });

    it("returns the existing answer unchanged when the new context does not help", async () => {
      const existing = "Paris  is the capital of France.";
      const { text } = await llm.complete("", refine(QUERY, existing, "Bananas are yellow."));
      expect(text).toBe(existing);
    });

    it("reads the chat refine prompt's variables too", async () => {
      const messages = CHAT_REFINE_PROMPT.formatMessages({
        query_str: QUERY,
        existing_answer: "",
        context_msg: CONTEXT,
      });
      const { text } = await llm.chat(messages, refine(QUERY, "", CONTEXT));
      expect(text).toBe(FRANCE);
    });
  });

  describe("structured output", () => {
    it("returns StructuredRefineResponse JSON with query_satisfied first", async () => {
      const { text } = await llm.complete("", qa(QUERY, CONTEXT, { responseFormat: structured }));
      const parsed = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(parsed)).toEqual(["query_satisfied", "answer"]);
      expect(parsed).toEqual({ query_satisfied: true, answer: FRANCE });
    });

    it("reports query_satisfied false when nothing matches", async () => {
      const { text } = await llm.complete(
        "",
        refine("Who painted the Mona Lisa?", "", CONTEXT, { responseFormat: structured }),
      );
      expect(JSON.parse(text)).toEqual({ query_satisfied: false, answer: "" });
    });

    it("recognises the schema by its properties under another name", async () => {
      const format = {
        name: "Refined",
        schema: { type: "object", properties: { answer: {}, query_satisfied: {} } },
      };
      const { text } = await llm.complete("", qa(QUERY, CONTEXT, { responseFormat: format }));
      expect(text).toBe(JSON.stringify({ query_satisfied: true, answer: FRANCE }));
    });

    it("fills other schemas best effort", async () => {
      const format: JsonSchemaFormat = {
        name: "Answer",
        schema: {
          type: "object",
          properties: {
            summary: { type: "string" },
            found: { type: "boolean" },
            quotes: { type: "array", items: { type: "string" } },
            confidence: { type: "number" },
            level: { enum: ["low", "high"] },
          },
        },
      };
      const { text } = await llm.complete("", qa(QUERY, CONTEXT, { responseFormat: format }));
      expect(JSON.parse(text)).toEqual({
        summary: FRANCE,
        found: true,
        quotes: [FRANCE],
        confidence: 0,
        level: "low",
      });
    });
  });

  describe("raw prompts", () => {
    it("uses the context between the delimiters and the last Query: line", async () => {
      const { text } = await llm.complete(prompt);
      expect(text).toBe(FRANCE);
    });

    it("reads a formatted refine prompt", async () => {
      const refinePrompt = DEFAULT_REFINE_PROMPT.format({
        query_str: QUERY,
        existing_answer: "The capital of France hosts the Louvre.",
        context_msg: CONTEXT,
      });
      const { text } = await llm.complete(refinePrompt);
      expect(text).toBe(`The capital of France hosts the Louvre. ${FRANCE}`);
    });

    it("takes the last user message as the query of a chat without a Query: line", async () => {
      const { text } = await llm.chat([
        { role: "system", content: CONTEXT },
        { role: "user", content: QUERY },
      ]);
      expect(text).toBe(FRANCE);
    });
  });

  it("ranks with a pluggable embedModel", async () => {
    const embedModel = new MockEmbedding({
      embeddings: { "Red apples.": [1, 0], "Blue sky.": [0, 1], colour: [0.1, 1] },
    });
    const custom = new ExtractiveLLM({ embedModel, maxSentences: 1 });
    expect((await custom.complete("", qa("colour", "Red apples. Blue sky."))).text).toBe("Blue sky.");
    expect(embedModel.calls).toEqual([
      { method: "getTextEmbeddings", texts: ["Red apples.", "Blue sky."] },
      { method: "getQueryEmbedding", texts: ["colour"] },
    ]);
  });

  it("is deterministic", async () => {
    const first = await new ExtractiveLLM().complete("", qa(QUERY, CONTEXT));
    const second = await new ExtractiveLLM().complete("", qa(QUERY, CONTEXT));
    expect(second).toEqual(first);
  });

  it("rejects invalid options with typed errors", async () => {
    const attempts = [
      () => new ExtractiveLLM({ maxSentences: 0 }),
      () => new ExtractiveLLM({ contextWindow: 1.5 }),
      () => new ExtractiveLLM({ satisfiedThreshold: 2 }),
      () => new ExtractiveLLM({ minScore: Number.NaN }),
    ];
    for (const attempt of attempts) {
      try {
        attempt();
        expect.unreachable();
      } catch (error) {
        expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
      }
    }
    await expect(llm.complete("", qa(QUERY, CONTEXT, { maxTokens: -1 }))).rejects.toThrowError(
      "Expected `maxTokens` to be an integer ≥ 0, got `-1` (number).",
    );
  });
});

describe("ExtractiveLLM and Markdown", () => {
  it("never quotes a Markdown heading or a metadata line, though they match the query's words", async () => {
    const llm = new ExtractiveLLM();
    const context =
      "file_path: docs/response-modes.md\n\n# Response modes\n\nA mode decides how chunks become prompts.\n\n" +
      "The default response mode is `compact`.";
    const { text } = await llm.complete("", {
      templateVariables: { query_str: "What is the default response mode?", context_str: context },
      promptType: "text_qa",
    });
    expect(text).toContain("The default response mode is `compact`.");
    expect(text).not.toContain("# Response modes");
    expect(text).not.toContain("file_path");
  });
});
