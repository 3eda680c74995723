import { lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import { holdsImage } from "../reader/image-references.js";
import type { TextNode } from "../schema/text-node.js";
import type { EncodedNode } from "../store/node-row.js";
import { contentHash } from "./embedding-cache.js";
import { lexicalContent } from "./index-retriever.js";

/**
 * A chunk as a build's group holds it before writing: its node (or, split in a worker thread, the node's id and row
 * value), its content hash, its BM25 terms, whether it holds an image, and its content only while it may still need
 * embedding.
 */
export interface AnalyzedChunk {
  readonly node: TextNode | EncodedNode;
  readonly contentHash: string;
  readonly terms: readonly string[];
  readonly holdsImage: boolean;
  content?: string;
}

/**
 * A chunk analyzed at once (a worker thread's, `split-thread.ts`, which sends everything back): the same content
 * hash, terms and image flag as {@link analyzeChunk}, with its content for embedding when `keepVectors`.
 */
export function analyzeChunkNow(
  node: TextNode,
  keepVectors: boolean,
): { contentHash: string; terms: string[]; holdsImage: boolean; content?: string } {
  const content = lexicalContent(node);
  return {
    contentHash: contentHash(content),
    terms: lexicalDocumentTerms(content),
    holdsImage: holdsImage(node),
    ...(keepVectors ? { content } : {}),
  };
}

/**
 * A chunk split in this thread: its terms analyzed when first asked for (a store asks only for the chunks it writes)
 * and from the node again, not from the content, so a group does not hold every chunk's content a second time.
 */
export function analyzeChunk(node: TextNode, keepVectors: boolean): AnalyzedChunk {
  const content = lexicalContent(node);
  let terms: string[] | undefined;
  const analyzed: AnalyzedChunk = {
    node,
    contentHash: contentHash(content),
    get terms() {
      terms ??= lexicalDocumentTerms(lexicalContent(node));
      return terms;
    },
    holdsImage: holdsImage(node),
  };
  if (keepVectors) analyzed.content = content;
  return analyzed;
}
