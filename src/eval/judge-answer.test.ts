import { describe, expect, it } from "vitest";
import { PromptHelper } from "../budget/prompt-helper.js";
import { OpenAILike } from "../openai/openai-like.js";
import { seededRandom } from "../testing/fake-openai-replies.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { judgeAnswer } from "./judge-answer.js";

const startServer = fakeServersClosedAfterEach();

/** A fake server scripted as a judge: each evaluator's prompt is recognised by its own words. */
function judgeScript(replies: { faithfulness: string; relevancy: string; correctness: string }) {
  return ({ prompt, messages }: { prompt: string; messages: Array<{ content: string }> }) => {
    const text = messages.length > 0 ? messages.map((message) => message.content).join("\n") : prompt;
    if (text.includes("is supported by the context") || text.includes("following information is present"))
      return replies.faithfulness;
    if (text.includes("in line with the context information")) return replies.relevancy;
    if (text.includes("expert evaluation system")) return replies.correctness;
    return `unexpected prompt: ${text.slice(0, 200)}`;
  };
}

async function setup(
  replies: Parameters<typeof judgeScript>[0],
  options: { contextWindow?: number; isChatModel?: boolean } = {},
) {
  const server = await startServer({ handler: judgeScript(replies) });
  const judge = new OpenAILike({
    model: "judge",
    baseURL: server.url,
    apiKey: "sk-local",
    contextWindow: options.contextWindow ?? 4096,
    isChatModel: options.isChatModel ?? true,
  });
  return { server, judge, promptHelper: PromptHelper.fromLLMMetadata(judge.metadata) };
}

const contexts = ["Compact is the default response mode.", "Refine walks the chunks one by one."];

describe("judgeAnswer against the fake OpenAI server", () => {
  it("sends LlamaIndex's three prompts and reads their verdicts", async () => {
    const { server, judge, promptHelper } = await setup({
      faithfulness: "YES",
      relevancy: "NO",
      correctness: "4.0\nSame as the reference.",
    });
    const verdicts = await judgeAnswer({
      judge,
      promptHelper,
      query: "What is the default mode?",
      answer: "Compact mode.",
      contexts,
      reference: "compact",
    });
    expect(verdicts.faithfulness).toMatchObject({ passing: true, score: 1 });
    expect(verdicts.relevancy).toMatchObject({ passing: false, score: 0 });
    expect(verdicts.correctness).toMatchObject({
      passing: true,
      score: 4,
      feedback: "Same as the reference.",
    });
    expect(server.requests).toHaveLength(3);
    const [faithfulness, relevancy, correctness] = server.requests.map(
      (request) =>
        (request.body as { messages: unknown }).messages as Array<{ role: string; content: string }>,
    );
    // Faithfulness asks whether the answer is supported: the answer is the "information".
    expect(faithfulness?.at(-1)?.content).toContain(
      "Information: Compact mode.\nContext: Compact is the default response mode.",
    );
    expect(relevancy?.at(-1)?.content).toContain(
      "Query and Response: \n Question: What is the default mode?\nResponse: Compact mode.",
    );
    expect(correctness?.[0]).toMatchObject({ role: "system" });
    expect(correctness?.[0]?.content).toContain("Your score has to be between 1 and 5");
    expect(correctness?.[1]?.content).toBe(
      "\n## User Query\nWhat is the default mode?\n\n## Reference Answer\ncompact\n\n## Generated Answer\nCompact mode.\n",
    );
    for (const verdict of Object.values(verdicts)) expect(verdict.usage.calls).toBe(1);
  });

  it("counts malformed replies as failures, never as passes", async () => {
    const { judge, promptHelper } = await setup({
      faithfulness: "The eyes of the context say it might be so.",
      relevancy: "",
      correctness: "Score: 5 (excellent)\nfine",
    });
    const verdicts = await judgeAnswer({
      judge,
      promptHelper,
      query: "q?",
      answer: "a.",
      contexts,
      reference: "a",
    });
    for (const name of ["faithfulness", "relevancy", "correctness"]) {
      expect(verdicts[name]?.passing, name).toBeNull();
      expect(verdicts[name]?.error, name).toMatch(/^unreadable judge reply: /);
    }
    expect(verdicts.faithfulness?.feedback).toBe("The eyes of the context say it might be so.");
  });

  it("fails a verdict on a server error or an empty answer without guessing", async () => {
    const { judge, promptHelper } = await setup({
      faithfulness: "YES",
      relevancy: "YES",
      correctness: "5\nok",
    });
    const empty = await judgeAnswer({ judge, promptHelper, query: "q?", answer: " ", contexts });
    expect(Object.values(empty).every((verdict) => verdict.passing === null)).toBe(true);
    const server = await startServer({ faults: [{ kind: "status", status: 400, message: "bad judge" }] });
    const broken = new OpenAILike({
      model: "judge",
      baseURL: server.url,
      apiKey: "sk-local",
      contextWindow: 4096,
      maxRetries: 0,
    });
    const verdicts = await judgeAnswer({
      judge: broken,
      promptHelper,
      query: "q?",
      answer: "a",
      contexts,
      judges: ["correctness"],
    });
    expect(verdicts.correctness).toMatchObject({ passing: null, score: null });
    expect(verdicts.correctness?.error).toMatch(/^the judge call failed: /);
  });

  it("keeps every judge prompt within the window, whatever the sizes (fuzz)", async () => {
    const windowSize = 700;
    const { server, judge, promptHelper } = await setup(
      { faithfulness: "YES", relevancy: "YES", correctness: "3\nok" },
      { contextWindow: windowSize, isChatModel: false },
    );
    const random = seededRandom(31);
    const words = (count: number) =>
      Array.from(
        { length: count },
        (_, index) => `word${Math.floor(random() * 1000)}${index % 7 === 0 ? "." : ""}`,
      ).join(" ");
    for (let round = 0; round < 12; round++) {
      const verdicts = await judgeAnswer({
        judge,
        promptHelper,
        query: words(1 + Math.floor(random() * 20)),
        answer: words(1 + Math.floor(random() * 500)),
        contexts: Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
          words(1 + Math.floor(random() * 400)),
        ),
        reference: words(1 + Math.floor(random() * 600)),
      });
      // A long answer can leave faithfulness no room at all: then it fails loudly instead of overflowing.
      for (const verdict of Object.values(verdicts))
        expect(verdict.passing === null ? verdict.error : "ok").toMatch(/ok|window|fit|tokens/i);
    }
    expect(server.requests.length).toBeGreaterThan(24);
    for (const request of server.requests) {
      const prompt = String((request.body as { prompt: unknown }).prompt);
      expect(promptHelper.tokenizer.count(prompt)).toBeLessThanOrEqual(windowSize - promptHelper.numOutput);
    }
  });
});
