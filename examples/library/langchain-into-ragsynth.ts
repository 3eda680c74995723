// LangChain.js pieces inside ragsynth: a LangChain chat model, embeddings and vector store drive a ragsynth query engine.
import { Document } from "@langchain/core/documents";
import { FakeListChatModel, FakeVectorStore, SyntheticEmbeddings } from "@langchain/core/utils/testing";
import { RetrieverQueryEngine } from "ragsynth";
import {
  fromLangChainChatModel,
  fromLangChainEmbeddings,
  fromLangChainVectorStore,
} from "ragsynth/langchain";

export async function main() {
  // Offline stand-ins from @langchain/core; use new ChatOpenAI({ model: "gpt-4o-mini" }) and new OpenAIEmbeddings() for real.
  const chatModel = new FakeListChatModel({ responses: ["The Eiffel Tower was finished in 1889."] });
  const embeddings = new SyntheticEmbeddings({ vectorSize: 64 });
  const store = await FakeVectorStore.fromDocuments(
    [
      new Document({
        pageContent: "The Eiffel Tower was finished in 1889.",
        metadata: { source: "paris.txt" },
      }),
      new Document({ pageContent: "The Brandenburg Gate is in Berlin.", metadata: { source: "berlin.txt" } }),
    ],
    embeddings,
  );

  const engine = new RetrieverQueryEngine({
    retriever: fromLangChainVectorStore(store, { k: 2 }), // or fromLangChainRetriever(store.asRetriever())
    llm: fromLangChainChatModel(chatModel, { contextWindow: 8192 }), // profile.maxInputTokens is used when known
    responseMode: "compact",
  });
  const response = await engine.query({ query: "When was the Eiffel Tower finished?" });
  console.log(response.toString()); // The Eiffel Tower was finished in 1889.
  for (const source of response.sourceNodes)
    console.log(source.score?.toFixed(2), source.node.metadata.source);

  // LangChain embeddings work wherever ragsynth takes an `embedModel` (VectorStoreIndex, SentenceEmbeddingOptimizer).
  const embedModel = fromLangChainEmbeddings(embeddings);
  console.log(embedModel.id); // langchain:SyntheticEmbeddings
  return { response, embedModel };
}
