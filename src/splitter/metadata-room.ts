import { MetadataMode, type TextNode } from "../schema/text-node.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { DEFAULT_METADATA_FORMAT_LEN } from "./token-text-splitter.js";

/** The longer of a node's embed and LLM metadata strings: a chunk must leave room for either. */
export function longestMetadataStr(node: TextNode): string {
  const embed = node.getMetadataStr(MetadataMode.EMBED);
  const llm = node.getMetadataStr(MetadataMode.LLM);
  return embed.length > llm.length ? embed : llm;
}

/**
 * The tokens a chunk's metadata takes in its node's content: the metadata string plus
 * {@link DEFAULT_METADATA_FORMAT_LEN} for the separator between it and the text (LlamaIndex's rule). Without the
 * separator's tokens a chunk filled to `chunkSize − metadata` came out 1–2 tokens over `chunkSize` once rendered.
 */
export function metadataTokens(tokenizer: Tokenizer, metadataStr: string): number {
  return tokenizer.count(metadataStr) + DEFAULT_METADATA_FORMAT_LEN;
}
