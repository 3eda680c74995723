import { type NodeWithScore, TextNode } from "../schema/text-node.js";

/** The two retrieved chunks the eval tests score against (fresh nodes at each call). */
export function twoChunks(): NodeWithScore[] {
  return [
    {
      node: new TextNode({
        id: "c1",
        text: "Compact is the default response mode.",
        metadata: { file_path: "/docs/modes.md" },
      }),
      score: 2,
    },
    {
      node: new TextNode({
        id: "c2",
        text: "Refine walks the chunks one by one.",
        metadata: { file_path: "/docs/refine.md" },
      }),
      score: 1,
    },
  ];
}
