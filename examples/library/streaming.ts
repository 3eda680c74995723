// Stream an answer: sources are there at once, text arrives as it is generated.
import { ExtractiveLLM, getResponseSynthesizer, TextNode } from "ragsynth";

export async function main() {
  const synthesizer = getResponseSynthesizer({ llm: new ExtractiveLLM(), responseMode: "refine" });
  const controller = new AbortController(); // controller.abort() cancels every call in flight
  const { sourceNodes, textStream, response } = synthesizer.stream({
    query: "Which river runs through Paris?",
    nodes: [
      { node: new TextNode({ text: "Paris lies on the Seine. The Seine flows into the English Channel." }) },
    ],
    signal: controller.signal,
  });
  console.log(`${sourceNodes.length} source(s)`);
  let streamed = "";
  for await (const delta of textStream) {
    process.stdout.write(delta);
    streamed += delta;
  }
  process.stdout.write("\n");
  const final = await response; // resolves when the stream has ended, with usage
  return { streamed, final };
}
