// The LLM citation judge against a real local OpenAI-compatible server: LlamaIndex's faithfulness prompt per
// distinct cited pair, its YES/NO deciding `unsupported`, an unreadable reply never a pass.
import { describe, expect, it } from "vitest";
import { CitationQueryEngine } from "../citations/citation-query-engine.js";
import { OpenAILike } from "../openai/openai-like.js";
import { TextNode } from "../schema/text-node.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { llmCitationJudge } from "./llm-citation-judge.js";

const startServer = fakeServersClosedAfterEach();

const NODES = [
  "The sky is red in the evening and blue in the morning.",
  "Water is wet when the sky is red. Rain falls from grey clouds.",
];
// Lexically supported and true; lexically supported but negated; a paraphrase in other words; nonsense;
// one the judge answers unreadably; and the first again (the same pair is judged once).
const GOOD = "Water is wet when the sky is red [2].";
const NEGATED = "Water is not wet when the sky is red [2].";
const PARAPHRASE = "At dusk the heavens turn crimson [1].";
const NONSENSE = "Penguins juggle flaming torches on the moon [1].";
const UNREADABLE = "Rain falls from grey clouds [2].";
const ANSWER = [GOOD, NEGATED, PARAPHRASE, NONSENSE, UNREADABLE, GOOD].join(" ");
const JUDGED: Record<string, string> = {
  "Water is wet when the sky is red.": "YES",
  "Water is not wet when the sky is red.": "NO, the context says the opposite.",
  "At dusk the heavens turn crimson.": "YES",
  "Penguins juggle flaming torches on the moon.": "NO",
  "Rain falls from grey clouds.": "Maybe, hard to say.",
};
const QUESTION = "Please tell if a given piece of information is supported by the context.";

function informationOf(prompt: string): string | undefined {
  return /^Information: (.*)\nContext: /.exec(prompt.split("Answer: NO\n")[1] ?? "")?.[1];
}

async function setup(maxCalls?: number) {
  const server = await startServer({
    handler: ({ prompt }) => {
      if (!prompt.startsWith(QUESTION)) return { text: ANSWER, deltas: ANSWER.match(/[\s\S]{1,5}/g) ?? [] };
      return JUDGED[informationOf(prompt)?.replace(/\s+/g, " ").trim() ?? ""] ?? "(an unknown sentence)";
    },
  });
  const llm = new OpenAILike({ model: "fake", baseURL: server.url, apiKey: "test", contextWindow: 2000 });
  const engine = new CitationQueryEngine({
    retriever: { retrieve: async () => NODES.map((text) => ({ node: new TextNode({ text }) })) },
    llm,
    judge: llmCitationJudge({ judge: llm, concurrency: 2, ...(maxCalls === undefined ? {} : { maxCalls }) }),
  });
  return { server, engine };
}

describe("llmCitationJudge against the fake OpenAI server", () => {
  for (const streamed of [false, true]) {
    it(`decides support per citation, one call per distinct pair (${streamed ? "streamed" : "not streamed"})`, async () => {
      const { server, engine } = await setup();
      let response: Awaited<ReturnType<CitationQueryEngine["query"]>>;
      if (streamed) {
        const streaming = await engine.stream({ query: "When is water wet?" });
        for await (const _ of streaming.textStream);
        response = await streaming.response;
      } else {
        response = await engine.query({ query: "When is water wet?" });
      }
      const { citations, unsupported, judgeUsage } = response.citations;
      const judgeCalls = server.requests.filter((request) => request.prompt?.includes(QUESTION));
      expect(judgeCalls).toHaveLength(5); // six citations, the first pair twice
      // Every judge prompt is LlamaIndex's faithfulness prompt with the sentence (markers removed) and one piece.
      for (const call of judgeCalls) expect(call.prompt).toMatch(/\nContext: (The sky is red|Water is wet)/);
      expect(judgeUsage?.calls).toBe(5);
      expect(judgeUsage?.promptTokens).toBeGreaterThan(0);
      const bySentence = Object.fromEntries(
        citations.map((citation) => [citation.sentence, citation.support]),
      );
      expect(bySentence[GOOD]).toMatchObject({ judge: true, supported: true });
      // The negation passes the lexical score but not the judge; the paraphrase the other way round.
      expect(bySentence[NEGATED]).toMatchObject({ lexical: 1, judge: false, supported: false });
      expect(bySentence[PARAPHRASE]?.lexical).toBeLessThan(0.5);
      expect(bySentence[PARAPHRASE]).toMatchObject({ judge: true, supported: true });
      expect(bySentence[NONSENSE]).toMatchObject({ judge: false, supported: false });
      // An unreadable reply is no verdict: the lexical score decides, and the reason is kept.
      expect(bySentence[UNREADABLE]).toMatchObject({ lexical: 1, judge: null, supported: true });
      expect(bySentence[UNREADABLE]?.judgeError).toMatch(/unreadable judge reply/);
      expect(unsupported.map((citation) => citation.sentence)).toEqual([NEGATED, NONSENSE]);
    });
  }

  it("asks at most maxCalls times per answer; the rest keep their scores and say why", async () => {
    const { server, engine } = await setup(2);
    const response = await engine.query({ query: "When is water wet?" });
    const judgeCalls = server.requests.filter((request) => request.prompt?.includes(QUESTION));
    expect(judgeCalls).toHaveLength(2);
    const unjudged = response.citations.citations.filter((citation) => citation.support.judge === null);
    expect(unjudged).toHaveLength(3);
    for (const citation of unjudged) expect(citation.support.judgeError).toMatch(/maxCalls/);
  });

  it("refuses a judge that is not a model, and a bad concurrency, with typed errors", () => {
    expect(() => llmCitationJudge({ judge: {} as never })).toThrow(/Expected `judge` to be an LLM/);
    expect(() =>
      llmCitationJudge({ judge: new OpenAILike({ model: "x", apiKey: "k" }), concurrency: 0 }),
    ).toThrow(/concurrency/);
  });
});
