import type { TextNode } from "../schema/text-node.js";

// A document read from a file keeps the SHA-256 of the file's bytes beside it, not in its metadata (which every
// chunk copies and the index stores): an index records it with the file, and knows a file whose time changed but
// whose bytes did not without parsing it again.
const bytesHashOf = new WeakMap<TextNode, string>();

/** Remembers the SHA-256 (hex) of the bytes `document` was read from. */
export function setDocumentBytesHash(document: TextNode, hash: string): void {
  bytesHashOf.set(document, hash);
}

/** The SHA-256 (hex) of the bytes `document` was read from, or undefined for one not read from a file. */
export function getDocumentBytesHash(document: TextNode): string | undefined {
  return bytesHashOf.get(document);
}
