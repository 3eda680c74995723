import { checkNodesWithScore } from "./check-text-nodes.js";
import type { ContentBlock } from "./content-block.js";
import { ImageNode } from "./image-node.js";
import { MetadataMode, type NodeWithScore } from "./text-node.js";

/** True when any node is an {@link ImageNode}. */
export function hasImageNodes(nodes: readonly NodeWithScore[]): boolean {
  return nodes.some(({ node }) => ImageNode.isInstance(node));
}

/**
 * The nodes as content blocks, in order: a text node's LLM content as a text block; an image node's caption
 * (with its metadata lines) as a text block when it has one, then the image. Blank text is left out.
 */
export function nodesToBlocks(nodes: readonly NodeWithScore[]): ContentBlock[] {
  checkNodesWithScore(nodes, "nodes");
  const blocks: ContentBlock[] = [];
  for (const { node } of nodes) {
    const text = node.getContent(MetadataMode.LLM);
    if (text.trim() !== "") blocks.push({ type: "text", text });
    if (ImageNode.isInstance(node)) blocks.push({ ...node.toBlock(), alt: undefined });
  }
  return blocks;
}
