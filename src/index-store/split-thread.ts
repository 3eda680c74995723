import { setDocumentBlocks } from "../reader/document-blocks.js";
import type { DocumentBlock } from "../reader/formats/types.js";
import { TextNode, type TextNodeInit } from "../schema/text-node.js";
import type { BlockSplitter, BlockSplitterOptions } from "../splitter/block-splitter.js";
import { encodeNode } from "../store/node-row.js";
import { analyzeChunkNow } from "./analyzed-chunk.js";

// What an index build's worker threads are sent and send back (split-pool.ts starts them, split-worker.ts is their
// code): a document in, its chunks out, each analyzed by the rule a build analyzes the chunks it splits itself with
// (analyzed-chunk.ts) and encoded as its row.

/** What a worker thread is started with. */
export interface SplitThreadSettings {
  /** The build's splitter (`BlockSplitter.plainOptions`). */
  splitter: BlockSplitterOptions;
  /** Send each chunk's content back (the build embeds what the store lacks). */
  keepVectors: boolean;
  /** The tokenizer cache the main thread uses (`useTokenizerCache`), so a worker counts with the pieces saved there. */
  tokenizerCache: { folder: string; compiledCode: boolean } | undefined;
}

/** A document to split: its fields and its blocks. */
export interface SplitRequest {
  seq: number;
  document: Required<TextNodeInit>;
  blocks: readonly DocumentBlock[] | undefined;
}

/** A chunk split in a worker: what the build needs of it besides its row. */
export interface SplitChunk {
  id: string;
  contentHash: string;
  terms: string[];
  holdsImage: boolean;
  content?: string;
}

/**
 * A document's chunks, their rows one after another in `rows` (chunk `i` ends at `ends[i]`); `failed` when the
 * splitter threw (the build splits that document itself, and its error is thrown there with its own type).
 */
export type SplitReply =
  | { seq: number; chunks: SplitChunk[]; rows: ArrayBuffer; ends: Uint32Array }
  | { seq: number; failed: string };

/** Asks a worker to save its tokenizer's counts (one worker after another, as the table file is merged). */
export interface SaveRequest {
  save: true;
}

/** Splits, analyzes and encodes one document in a worker thread. */
export function splitRequested(
  { seq, document: fields, blocks }: SplitRequest,
  splitter: BlockSplitter,
  keepVectors: boolean,
): SplitReply {
  const document = new TextNode(fields);
  if (blocks) setDocumentBlocks(document, blocks);
  const chunks: SplitChunk[] = [];
  const rows: Buffer[] = [];
  let total = 0;
  for (const node of splitter.iterateNodes(document)) {
    chunks.push({ id: node.id, ...analyzeChunkNow(node, keepVectors) });
    const row = encodeNode(node);
    rows.push(row);
    total += row.length;
  }
  // One buffer of its own (not Node's shared pool), moved to the main thread rather than copied.
  const bytes = new Uint8Array(total);
  const ends = new Uint32Array(rows.length);
  let at = 0;
  for (const [index, row] of rows.entries()) {
    bytes.set(row, at);
    at += row.length;
    ends[index] = at;
  }
  return { seq, chunks, rows: bytes.buffer, ends };
}
