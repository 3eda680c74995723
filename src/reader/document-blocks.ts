import type { TextNode } from "../schema/text-node.js";
import type { DocumentBlock } from "./formats/types.js";

// A document read by a format reader keeps its blocks beside it, not in its metadata (which is shown to models and
// stored in the index): the chunker reads them once and they go with the document.
const blocksOf = new WeakMap<TextNode, readonly DocumentBlock[]>();

/** Remembers the blocks a reader found for `document` (one file's document). */
export function setDocumentBlocks(document: TextNode, blocks: readonly DocumentBlock[]): void {
  blocksOf.set(document, blocks);
}

/** The blocks a reader found for `document`, or undefined for a document made from plain text. */
export function getDocumentBlocks(document: TextNode): readonly DocumentBlock[] | undefined {
  return blocksOf.get(document);
}
