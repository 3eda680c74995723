// The citation engine against a real local OpenAI-compatible server that answers with scripted citations:
// good ones, out-of-range ones and unsupported sentences, in every mode that sends context, streamed and not.
import { describe, expect, it } from "vitest";
import { OpenAILike } from "../openai/openai-like.js";
import type { Retriever } from "../retrieval/retriever.js";
import { TextNode } from "../schema/text-node.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";
import { parseCitationMarkers } from "./citation-markers.js";
import { CitationQueryEngine } from "./citation-query-engine.js";

const startServer = fakeServersClosedAfterEach();

const topics = [
  "The sky is red in the evening and blue in the morning. Sunsets scatter long red wavelengths across the sky.",
  "Water is wet when the sky is red. Rain falls from grey clouds and soaks the ground in spring.",
  "Tokyo is the capital of Japan. The city hosts the national parliament and the imperial palace.",
];
const retriever: Retriever = {
  retrieve: async () =>
    topics.map((text, index) => ({
      node: new TextNode({
        id: `doc-${index}`,
        text: `${text} `.repeat(5).trim(),
        metadata: { file_path: `doc-${index}.md` },
      }),
      score: 1 - index / 10,
    })),
};

const GOOD = [
  "Water is wet when the sky is red [2].",
  "The sky is blue in the morning [1].",
  "Tokyo is the capital of Japan [3, 9].",
];
const UNSUPPORTED = "Penguins juggle flaming torches on the moon [1].";
const OUT_OF_RANGE_ONLY = "The evening sky is red [12].";
const ANSWER = [...GOOD, UNSUPPORTED, OUT_OF_RANGE_ONLY].join(" ");
// Deltas of three characters: most markers arrive split (`[1` then `2]`).
const DELTAS = ANSWER.match(/[\s\S]{1,3}/g) ?? [];

const MODES = ["compact", "refine", "tree_summarize", "accumulate", "compact_accumulate"] as const;

describe.each(MODES)("citations in %s against the fake OpenAI server", (responseMode) => {
  for (const streamed of [false, true]) {
    it(streamed ? "streamed" : "not streamed", async () => {
      const server = await startServer({ handler: () => ({ text: ANSWER, deltas: DELTAS }) });
      const llm = new OpenAILike({ model: "fake", baseURL: server.url, apiKey: "test", contextWindow: 700 });
      const engine = new CitationQueryEngine({ retriever, llm, responseMode });
      let response: Awaited<ReturnType<CitationQueryEngine["query"]>>;
      if (streamed) {
        const streaming = await engine.stream({ query: "When is water wet?" });
        let shown = "";
        for await (const delta of streaming.textStream) shown += delta;
        response = await streaming.response;
        expect(shown).toBe(response.response);
      } else {
        response = await engine.query({ query: "When is water wet?" });
      }
      const { sources, invalid, unsupported, citations } = response.citations;
      expect(sources).toHaveLength(3);
      expect(server.requests.length).toBeGreaterThan(1);
      // Every answer the model gave reaches the shown text once per call in accumulate modes, once otherwise.
      const answers = response.response.split("Tokyo is the capital of Japan [3].").length - 1;
      expect(answers).toBe(responseMode.endsWith("accumulate") ? server.requests.length : 1);
      const lastBody = server.requests[server.requests.length - 1]?.body as { stream?: boolean };
      expect(lastBody.stream === true).toBe(streamed);
      // 100% of out-of-range markers reported and removed: two per answer ([3, 9] → [3], and [12]).
      expect(invalid.map((item) => item.numbers)).toEqual(
        Array.from({ length: answers }, () => [[9], [12]]).flat(),
      );
      for (const marker of parseCitationMarkers(response.response))
        for (const number of marker.numbers) expect(number).toBeLessThanOrEqual(sources.length);
      expect(response.response).not.toContain("[12]");
      // Every scripted unsupported sentence flagged, and no good citation.
      expect(unsupported.map((citation) => citation.sentence)).toEqual(
        Array.from({ length: answers }, () => UNSUPPORTED),
      );
      const good = citations.filter((citation) => citation.sentence !== UNSUPPORTED);
      expect(good).toHaveLength(3 * answers);
      for (const citation of good) expect(citation.support.supported).toBe(true);
      expect(good.map((citation) => citation.source.location.filePath)).toEqual(
        Array.from({ length: answers }, () => ["doc-1.md", "doc-0.md", "doc-2.md"]).flat(),
      );
    });
  }
});
