// Ask for a typed answer: the zod schema is sent as JSON Schema and the answer is validated.
import { ExtractiveLLM, getResponseSynthesizer, TextNode } from "ragsynth";
import { z } from "zod";

export async function main() {
  const Answer = z.object({ answer: z.string() });
  const synthesizer = getResponseSynthesizer({
    llm: new ExtractiveLLM(),
    responseMode: "tree_summarize",
    outputSchema: Answer,
  });
  const response = await synthesizer.synthesize({
    query: "What is the capital of France?",
    nodes: [{ node: new TextNode({ text: "Paris is the capital of France." }) }],
  });
  const typed: z.infer<typeof Answer> | undefined = response.object; // validated; NoObjectGeneratedError if not
  console.log(typed?.answer);
  return response;
}
