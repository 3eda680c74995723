import { describe, expect, it } from "vitest";
import { OpenAILike } from "../openai/openai-like.js";
import { TextNode } from "../schema/text-node.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { firstQuestion, generateQuestions } from "./generate-questions.js";

const startServer = fakeServersClosedAfterEach();

const nodes = [
  "Compact is the default mode.",
  "Refine reads one chunk at a time.",
  "   ",
  "Streams end with usage.",
].map((text, index) => new TextNode({ id: `docs/modes.md#${index}`, text }));

describe("generateQuestions against the fake OpenAI server", () => {
  it("asks LlamaIndex's prompt per sampled chunk; the chunk is relevant, the model's answer the reference", async () => {
    const server = await startServer({
      handler: ({ prompt }) => {
        if (prompt.includes("You are a Teacher/ Professor.")) {
          if (prompt.includes("Streams end")) return "";
          return `1. What does "${prompt.split("\n")[3]?.slice(0, 12)}" say?\n2. A second question`;
        }
        return "Answer from the chunk.";
      },
    });
    const llm = new OpenAILike({
      model: "writer",
      baseURL: server.url,
      apiKey: "sk-local",
      contextWindow: 4096,
    });
    const { questions, skipped } = await generateQuestions({ nodes, llm, count: 10, seed: 7 });
    // Three chunks with text; the one whose reply was empty is reported, not hidden.
    expect(skipped).toEqual(["docs/modes.md#3"]);
    expect(questions.map((question) => question.id)).toEqual(["q1", "q2"]);
    for (const question of questions) {
      expect(question.query).toMatch(/^What does "(Compact is t|Refine reads)" say\?$/);
      expect(question.reference).toBe("Answer from the chunk.");
      const chunk = nodes.find((node) => node.id === question.relevant?.[0]);
      expect(question.query).toContain(chunk?.text.slice(0, 12));
    }
    const generation = server.requests
      .map(
        (request) =>
          (request.body as { messages: Array<{ content: string }> }).messages.at(-1)?.content ?? "",
      )
      .filter((content) => content.includes("You are a Teacher/ Professor."));
    expect(generation).toHaveLength(3);
    expect(generation[0]).toContain("Your task is to setup 1 questions for an upcoming quiz/examination.");
    expect(generation[0]?.endsWith('Restrict the questions to the context information provided."\n')).toBe(
      true,
    );
  });

  it("samples the same chunks for the same seed, and at most count", async () => {
    const server = await startServer({
      handler: ({ prompt }) => (prompt.includes("Teacher/ Professor") ? "Which?" : "This."),
    });
    const llm = new OpenAILike({
      model: "writer",
      baseURL: server.url,
      apiKey: "sk-local",
      contextWindow: 4096,
    });
    const first = await generateQuestions({ nodes, llm, count: 2, seed: 3 });
    const again = await generateQuestions({ nodes, llm, count: 2, seed: 3 });
    expect(first.questions).toHaveLength(2);
    expect(again.questions.map((question) => question.relevant)).toEqual(
      first.questions.map((question) => question.relevant),
    );
    await expect(generateQuestions({ nodes, llm, count: 0 })).rejects.toThrow(/`count`/);
  });
});

describe("firstQuestion", () => {
  it("strips LlamaIndex's numbering and keeps the first non-empty line", () => {
    expect(firstQuestion("\n1. What is compact?\n2. What is refine?")).toBe("What is compact?");
    expect(firstQuestion("3) Why?")).toBe("Why?");
    expect(firstQuestion("  \n ")).toBeUndefined();
  });
});
