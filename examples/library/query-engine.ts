// Documents in, answer out: index, retrieve, keep only the relevant sentences, then tree_summarize.
import {
  ExtractiveLLM,
  HashingEmbedder,
  SentenceEmbeddingOptimizer,
  TextNode,
  VectorStoreIndex,
} from "ragsynth";

export async function main() {
  const embedModel = new HashingEmbedder(); // lexical and offline; use OpenAILikeEmbedding for semantic search
  const documents = [
    new TextNode({
      text: "The Eiffel Tower is in Paris. It was finished in 1889. Millions of people visit it every year.",
      metadata: { file_name: "paris.txt" },
    }),
    new TextNode({
      text: "The Brandenburg Gate is in Berlin. It was built in the eighteenth century.",
      metadata: { file_name: "berlin.txt" },
    }),
  ];
  const index = await VectorStoreIndex.fromDocuments(documents, { embedModel });
  const engine = index.asQueryEngine({
    llm: new ExtractiveLLM(),
    similarityTopK: 2,
    responseMode: "tree_summarize",
    nodePostprocessors: [new SentenceEmbeddingOptimizer({ embedModel, percentileCutoff: 0.5 })],
  });
  const response = await engine.query({ query: "When was the Eiffel Tower finished?" });
  console.log(response.toString()); // The Eiffel Tower is in Paris. It was finished in 1889.
  for (const source of response.sourceNodes) console.log(source.score, source.node.metadata.file_name);
  return response;
}
