import { deflateRawSync, inflateRawSync } from "node:zlib";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { ImageNode, type ImageNodeInit } from "../schema/image-node.js";
import { TextNode } from "../schema/text-node.js";

/**
 * A node as one row value: its fields as `toJSON` gives them (an image node's image too), JSON, deflated (text
 * compresses about 3×, and a query inflates only the few chunks it returns).
 */
export function encodeNode(node: TextNode): Buffer {
  return deflateRawSync(JSON.stringify(node.toJSON()));
}

/**
 * A node that arrives as its row value already (split and encoded in a worker thread, `split-pool.ts`): its id and
 * the bytes {@link encodeNode} gave for it.
 */
export interface EncodedNode {
  readonly id: string;
  readonly encoded: Buffer;
}

/**
 * What a chunk's file is now, as its `sources` row has it: the size and modification time (the folder reader's
 * `file_size` and `last_modified_at`), when the row has them.
 */
export interface FileFacts {
  size?: number | null | undefined;
  lastModifiedAt?: string | null | undefined;
}

/**
 * A stored node with its file's current size and time ({@link FileFacts}) in place of the ones it was written with:
 * a file given a new time, its bytes kept (a checkout, a copy), updates its `sources` row alone (`setFingerprints`),
 * and its chunks' rows keep the time they were written with. So a chunk's `file_size` and `last_modified_at` are
 * read from its file's row; a key the node does not have is not added.
 */
export function withFileFacts(node: TextNode, { size, lastModifiedAt }: FileFacts): TextNode {
  const { metadata } = node;
  if (size !== null && size !== undefined && "file_size" in metadata) metadata.file_size = size;
  if (lastModifiedAt !== null && lastModifiedAt !== undefined && "last_modified_at" in metadata)
    metadata.last_modified_at = lastModifiedAt;
  return node;
}

/** The row value of a node: {@link encodeNode}'s bytes, computed here unless they came with it. */
export function nodeRow(node: TextNode | EncodedNode): Buffer {
  return "encoded" in node ? node.encoded : encodeNode(node);
}

/**
 * A node back from its stored JSON: a TextNode, or an ImageNode when it holds an image (path, URL or bytes).
 * Stored rows are untrusted input: a row that is not a node is an `index_load` error naming the store.
 * @throws RagsynthError `index_load`
 */
export function decodeNode(stored: Uint8Array | string, where: string): TextNode {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof stored === "string" ? stored : inflateRawSync(stored).toString("utf8"));
  } catch (error) {
    throw damaged(where, "a chunk that is not valid (deflated) JSON", error);
  }
  if (
    !isRecord(raw) ||
    typeof raw.text !== "string" ||
    typeof raw.id !== "string" ||
    !isRecord(raw.metadata) ||
    !isStringArray(raw.excludedLlmMetadataKeys) ||
    !isStringArray(raw.excludedEmbedMetadataKeys)
  ) {
    throw damaged(where, "a malformed chunk");
  }
  const fields = {
    id: raw.id,
    text: raw.text,
    metadata: raw.metadata,
    excludedLlmMetadataKeys: raw.excludedLlmMetadataKeys,
    excludedEmbedMetadataKeys: raw.excludedEmbedMetadataKeys,
  };
  return ["imagePath", "imageUrl", "image"].some((key) => typeof raw[key] === "string")
    ? new ImageNode({ ...(raw as unknown as ImageNodeInit), ...fields })
    : new TextNode(fields);
}

/** An `index_load` error for a store whose content is not what ragsynth writes. */
export function damaged(where: string, what: string, cause?: unknown): RagsynthError {
  return new RagsynthError({
    code: "index_load",
    message: `The index ${where} holds ${what} (it may have been edited by hand). Delete it to rebuild the index from the documents.`,
    cause,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
