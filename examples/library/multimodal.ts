// Text and pictures in one answer: ImageNodes next to TextNodes, one token budget that counts both.
import { getResponseSynthesizer, ImageNode, PromptHelper, TextNode } from "ragsynth";
import { MockLLM } from "ragsynth/testing";

// A 1×1 PNG; in real use: new ImageNode({ imagePath: "docs/chart.png", text: "alt text" }) or { imageUrl }.
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export async function main() {
  const nodes = [
    { node: new TextNode({ text: "Q3 revenue grew in every region." }) },
    { node: new ImageNode({ image: PNG, text: "Bar chart of Q3 revenue by region", detail: "low" }) },
  ];
  // A vision model (here the test double; with OpenAI: new OpenAILike({ model: "gpt-4o-mini" })).
  const llm = new MockLLM({ response: "Revenue grew everywhere.", isChatModel: true, imageInput: "pixels" });
  const synthesizer = getResponseSynthesizer({ llm, responseMode: "compact" });
  const response = await synthesizer.synthesize({ query: "How did Q3 revenue develop?", nodes });
  // The user message carries text and image blocks; OpenAILike sends them as text and image_url parts.
  const sent = llm.calls[0]?.messages?.at(-1)?.blocks?.map((block) => block.type);
  console.log(response.toString(), sent); // Revenue grew everywhere. [ 'text', 'text', 'text', 'image', 'text' ]

  // What an image costs: OpenAI's rule (low detail 85; high: 85 + 170 per 512-px tile after scaling).
  const budget = new PromptHelper({ contextWindow: 8192, imageTokens: { kind: "openai" } });
  const tokens = budget.countImage({
    type: "image",
    url: "https://example.com/a.png",
    width: 1024,
    height: 1024,
  });
  console.log(tokens); // 765
  return { response, sent, tokens };
}
