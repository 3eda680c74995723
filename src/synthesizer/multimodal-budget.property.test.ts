import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countImageTokens } from "../budget/image-tokens.js";
import { PromptHelper } from "../budget/index.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { countPromptTokens } from "../prompt/render-prompt.js";
import { ImageNode } from "../schema/image-node.js";
import { pngOfSize } from "../schema/png.test.util.js";
import { type NodeWithScore, TextNode } from "../schema/text-node.js";
import { MockLLM, type MockLLMInput } from "../testing/mock-llm.js";
import { resolveTokenizer } from "../tokenizer/resolve-tokenizer.js";
import { getResponseSynthesizer } from "./get-response-synthesizer.js";
import { PACKING_MODES } from "./packing-modes.test.util.js";

const NUM_RUNS = Math.max(20, Math.floor(Number(process.env.RAGSYNTH_PROPERTY_RUNS ?? 200) / 2));
const cl100k = resolveTokenizer("cl100k_base");
const MODES = PACKING_MODES;
const WORDS = ["alpha", "beta", "γάμμα", "数据集", "don't", "—", "🙂", "\n", "chart", "figure", "x1y2"];

const item = fc.oneof(
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 120 }).map((words) => ({
    kind: "text" as const,
    text: words.join(" "),
  })),
  fc.record({
    kind: fc.constant("image" as const),
    width: fc.integer({ min: 16, max: 8000 }),
    height: fc.integer({ min: 16, max: 3000 }),
    detail: fc.constantFrom("low" as const, "high" as const),
    caption: fc.option(fc.constantFrom("A chart.", "Scanned page 3"), { nil: undefined }),
  }),
);

type Item = typeof item extends fc.Arbitrary<infer T> ? T : never;

function toNodes(items: readonly Item[]): NodeWithScore[] {
  return items.map((entry, index) =>
    entry.kind === "text"
      ? { node: new TextNode({ id: `t${index}`, text: entry.text }) }
      : {
          node: new ImageNode({
            id: `i${index}`,
            image: pngOfSize(entry.width, entry.height, { headerOnly: true }),
            detail: entry.detail,
            ...(entry.caption ? { text: entry.caption } : {}),
          }),
        },
  );
}

describe("multimodal budget property", () => {
  it("every call fits the window (images by OpenAI's rule), each image is sent exactly once, in order", async () => {
    let succeeded = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          mode: fc.constantFrom(...MODES),
          items: fc.array(item, { minLength: 1, maxLength: 7 }),
          contextWindow: fc.integer({ min: 1200, max: 6000 }),
          numOutput: fc.integer({ min: 16, max: 200 }),
          seed: fc.nat(1000),
        }),
        async ({ mode, items, contextWindow, numOutput, seed }) => {
          const llm = new MockLLM({
            contextWindow,
            isChatModel: true,
            imageInput: "pixels",
            response: ({ callIndex }: MockLLMInput) =>
              Array.from({ length: 1 + ((seed + callIndex * 31) % numOutput) }, () => "text").join(" "),
          });
          const nodes = toNodes(items);
          const synthesizer = getResponseSynthesizer({
            llm,
            responseMode: mode,
            promptHelper: new PromptHelper({ contextWindow, numOutput }),
          });
          try {
            await synthesizer.synthesize({ query: "What do the figures show?", nodes });
          } catch (error) {
            if (
              RagsynthError.isInstance(error, "context_overflow") ||
              RagsynthError.isInstance(error, "tree_not_shrinking")
            ) {
              if (RagsynthError.isInstance(error, "context_overflow")) expect(llm.calls).toHaveLength(0);
              return;
            }
            throw error;
          }
          const sentImages: string[] = [];
          for (const call of llm.calls) {
            const counted = countPromptTokens({ kind: "chat", messages: call.messages ?? [] }, cl100k, {
              countImage: (image) => countImageTokens(image).tokens,
            }).total;
            expect(counted + numOutput).toBeLessThanOrEqual(contextWindow);
            for (const message of call.messages ?? []) {
              for (const block of message.blocks ?? [])
                if (block.type === "image") sentImages.push(block.nodeId ?? "");
            }
          }
          const imageIds = nodes.flatMap(({ node }) => (ImageNode.isInstance(node) ? [node.id] : []));
          expect(sentImages).toEqual(imageIds);
          succeeded += 1;
        },
      ),
      { numRuns: NUM_RUNS },
    );
    // Most runs must reach the model, or the property would hold by rejecting everything.
    expect(succeeded).toBeGreaterThan(NUM_RUNS / 2);
  }, 240_000);
});
