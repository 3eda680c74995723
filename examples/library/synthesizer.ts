// Turn retrieved nodes into an answer with one of the nine response modes.
import { ExtractiveLLM, getResponseSynthesizer, TextNode } from "ragsynth";

export async function main() {
  // Offline and deterministic; swap in `new OpenAILike({ model: "gpt-4o-mini" })` for a real model.
  const llm = new ExtractiveLLM();
  const synthesizer = getResponseSynthesizer({ llm, responseMode: "compact" });
  const response = await synthesizer.synthesize({
    query: "What is the capital of France?",
    nodes: [
      { node: new TextNode({ text: "Paris is the capital of France. It lies on the Seine." }), score: 0.9 },
      { node: new TextNode({ text: "Berlin is the capital of Germany." }), score: 0.4 },
    ],
  });
  console.log(response.toString()); // quotes "Paris is the capital of France."
  console.log(response.usage); // { llmCalls: 1, promptTokens: …, completionTokens: …, retries: 0 }
  return response;
}
