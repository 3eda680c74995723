import { MetadataMode, type NodeWithScore } from "../schema/text-node.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";

/** Tokens of one node as the model sees it: its metadata header and text. */
export function countNodeTokens(node: NodeWithScore, tokenizer: Tokenizer): number {
  return tokenizer.count(node.node.getContent(MetadataMode.LLM));
}

/** Tokens of all nodes as the model sees them. */
export function countNodesTokens(nodes: readonly NodeWithScore[], tokenizer: Tokenizer): number {
  let total = 0;
  for (const node of nodes) total += countNodeTokens(node, tokenizer);
  return total;
}
