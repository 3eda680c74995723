import { describe, expect, it } from "vitest";
import { ExtractiveLLM } from "../extractive/extractive-llm.js";
import { VectorStoreIndex } from "../index-store/vector-store-index.js";
import { OpenAILikeEmbedding } from "../openai/openai-like-embedding.js";
import { SentenceEmbeddingOptimizer } from "../postprocessor/sentence-embedding-optimizer.js";
import { TextNode } from "../schema/text-node.js";
import { fakeServersClosedAfterEach } from "../testing/fake-servers-closed-after-each.test.util.js";

const startServer = fakeServersClosedAfterEach();
const QUERY = "Which river runs through Paris?";

describe("the query is embedded once per shared model", () => {
  it("retriever and SentenceEmbeddingOptimizer on one embedder: one POST /embeddings for the query (as LlamaIndex)", async () => {
    const server = await startServer();
    const embedModel = new OpenAILikeEmbedding({ model: "embed", baseURL: server.url, apiKey: "sk-local" });
    const index = await VectorStoreIndex.fromDocuments(
      [
        new TextNode({ text: "Paris lies on the Seine. It is the capital of France." }),
        new TextNode({ text: "Berlin lies on the Spree. It is the capital of Germany." }),
      ],
      { embedModel },
    );
    const engine = index.asQueryEngine({
      llm: new ExtractiveLLM(),
      retrievalMode: "dense",
      nodePostprocessors: [new SentenceEmbeddingOptimizer({ embedModel, percentileCutoff: 0.5 })],
    });
    const before = server.requests.length;
    await engine.query({ query: QUERY });
    const queryEmbeddings = server.requests
      .slice(before)
      .filter((request) => request.path === "/v1/embeddings")
      .filter((request) => JSON.stringify((request.body as { input: unknown }).input).includes(QUERY));
    expect(queryEmbeddings).toHaveLength(1);
    // A second query embeds its own query again (the memo lives for one query).
    await engine.query({ query: QUERY });
    const again = server.requests
      .slice(before)
      .filter((request) =>
        JSON.stringify((request.body as { input?: unknown })?.input ?? "").includes(QUERY),
      );
    expect(again).toHaveLength(2);
  });
});
