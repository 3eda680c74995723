// An answer that cites: every [N] resolved to its source and checked.
import { CitationQueryEngine, ExtractiveLLM, TextNode } from "ragsynth";

export async function main() {
  const nodes = [
    {
      node: new TextNode({
        text: "The sky is red in the evening and blue in the morning.",
        metadata: { file_path: "sky.md" },
      }),
    },
    {
      node: new TextNode({ text: "Water is wet when the sky is red.", metadata: { file_path: "water.md" } }),
    },
  ];
  // Offline: the extractive answerer quotes, and each quote is cited with the piece it was copied from.
  // With a real model (`new OpenAILike({ model: "gpt-4o-mini" })`) drop citeVerbatimQuotes: the model writes [N].
  const engine = new CitationQueryEngine({
    retriever: { retrieve: async () => nodes },
    llm: new ExtractiveLLM(),
    citeVerbatimQuotes: true,
  });
  const response = await engine.query({ query: "When is water wet?" });
  console.log(response.response); // Water is wet when the sky is red. [2]
  for (const citation of response.citations.citations)
    console.log(citation.marker, citation.source.location, citation.support);
  // [2] { filePath: 'water.md', startChar: 0, endChar: 33 } { lexical: 1, supported: true }
  return response;
}
