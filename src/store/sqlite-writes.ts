import type { TextNode } from "../schema/text-node.js";
import type { ChunkInput, SourceEdit } from "./index-store.js";
import { decodeNode, nodeRow } from "./node-row.js";
import { PostingsBatch } from "./sqlite-postings.js";
import type { SqliteStatements } from "./sqlite-statements.js";
import { type VectorCodeStatements, VectorCodesBatch } from "./sqlite-vector-codes.js";

// The writes of the SQLite store (sqlite-index-store.ts), run inside its write transaction, as postgres-writes.ts
// is for PostgreSQL.

/** What one write transaction needs of its store. */
export interface SqliteWriteContext {
  sql: SqliteStatements;
  codeSql: VectorCodeStatements;
  /** The file, for errors. */
  location: string;
  /** A stored chunk's terms (its postings are found by analyzing its node again). */
  analyze: (node: TextNode) => readonly string[];
  blockPostings: number | undefined;
  /**
   * Every term the postings table holds, when the store knows them all ({@link PostingsBatch}); the batch adds the
   * terms it writes.
   */
  termsWithBlocks: Set<string> | undefined;
  /** Whether the store keeps vectors (else it keeps no codes either). */
  keepsVectors: boolean;
  /** The stored vector of a content hash, if any. */
  vectorOf: (contentHash: string) => Float32Array | undefined;
}

/**
 * One write transaction's changes: documents removed and replaced row by row, postings blocks and pages of vector
 * codes gathered and written by {@link finish}, vectors no chunk uses any more dropped.
 */
export class SqliteWrite {
  readonly #context: SqliteWriteContext;
  readonly #sql: SqliteStatements;
  readonly #postings: PostingsBatch;
  readonly #codes: VectorCodesBatch;
  /** Content hashes whose chunks were removed: their vectors go when no chunk uses them. */
  readonly #freed = new Set<string>();

  constructor(context: SqliteWriteContext) {
    this.#context = context;
    this.#sql = context.sql;
    this.#postings = new PostingsBatch(
      context.sql,
      context.location,
      context.blockPostings,
      context.termsWithBlocks,
    );
    this.#codes = new VectorCodesBatch(context.codeSql, context.location);
  }

  /** Removes a document's rows. */
  remove(id: string): void {
    this.#removeSource(id);
  }

  /** Writes a document's rows in place of what the store held for it (or chunks of no document). */
  replace(edit: SourceEdit): void {
    const replaced = edit.source ? this.#removeSource(edit.source.id, edit.chunks) : undefined;
    this.#insert(edit, replaced);
  }

  /** Writes the gathered postings and codes, and drops the vectors no chunk uses any more. */
  finish(): void {
    this.#postings.flush();
    this.#codes.flush();
    for (const hash of this.#freed) this.#sql.dropUnusedVector.run(hash, hash);
  }

  /**
   * Removes a document's rows, except the chunks `replacement` holds again with the same node id and content (an
   * edit that changed one part of a file): those keep their row and postings (same content, same terms), and are
   * returned by node id with their keys, for {@link #insert} to rewrite their node (its metadata may have changed),
   * with the document's position, which its replacement takes (so an edit moves no other document).
   */
  #removeSource(id: string, replacement: readonly ChunkInput[] = []): Replaced {
    const again = new Map(replacement.map((chunk) => [chunk.node.id, chunk.contentHash]));
    const kept = new Map<string, number>();
    for (const chunk of this.#sql.sourceChunks.all(id) as SourceChunkRow[]) {
      if (again.get(chunk.node_id) === chunk.content_hash) {
        kept.set(chunk.node_id, chunk.key);
        continue;
      }
      this.#removeChunk(chunk.key);
      this.#freed.add(chunk.content_hash);
    }
    const row = this.#sql.deleteSource.get(id) as { position: number } | undefined;
    return { kept, position: row?.position };
  }

  #removeChunk(key: number): void {
    const row = this.#sql.chunkRemoval.get(key) as { length: number; node: Buffer | string } | undefined;
    if (row === undefined) return;
    const { analyze, location, keepsVectors } = this.#context;
    this.#postings.remove(key, row.length, () => analyze(decodeNode(row.node, location)));
    if (keepsVectors) this.#codes.clear(key);
    this.#sql.deleteChunk.run(key);
  }

  #insert({ source, chunks }: SourceEdit, replaced?: Replaced): void {
    if (source === null) {
      for (const [position, chunk] of chunks.entries()) this.#insertChunk(null, position, chunk);
      return;
    }
    this.#sql.insertSource.run(
      source.id,
      replaced?.position ?? null,
      source.contentHash,
      source.size ?? null,
      source.lastModifiedAt ?? null,
      source.reader ?? null,
      chunks.length,
      chunks.every(({ node }, index) => node.id === `${source.id}#${index}`)
        ? null
        : JSON.stringify(chunks.map(({ node }) => node.id)),
      source.bytesHash ?? null,
    );
    for (const [position, chunk] of chunks.entries()) {
      const key = replaced?.kept.get(chunk.node.id);
      if (key === undefined) this.#insertChunk(source.id, position, chunk);
      else this.#sql.keepChunk.run(position, chunk.holdsImage ? 1 : 0, nodeRow(chunk.node), key);
    }
  }

  #insertChunk(
    sourceId: string | null,
    position: number,
    { node, contentHash, terms, embedding, holdsImage }: ChunkInput,
  ): void {
    // A node id is one chunk: one that another document held (not expected: ids are `<file>#<n>`) moves here.
    const existing = this.#sql.chunkKeyByNodeId.pluck().get(node.id) as number | undefined;
    if (existing !== undefined) {
      const from = this.#sql.chunkSource.pluck().get(existing) as string | null;
      this.#removeChunk(existing);
      if (from !== null && from !== sourceId) {
        const ids = this.#sql.chunkNodeIdsOfSource.pluck().all(from) as string[];
        this.#sql.setSourceNodeIds.run(ids.length, JSON.stringify(ids), from);
      }
    }
    const key = Number(
      this.#sql.insertChunk.run(
        node.id,
        sourceId,
        position,
        contentHash,
        terms.length,
        holdsImage ? 1 : 0,
        nodeRow(node),
      ).lastInsertRowid,
    );
    this.#postings.add(key, terms);
    if (embedding) this.#sql.insertVector.run(contentHash, toBlob(embedding));
    if (!this.#context.keepsVectors) return;
    // A chunk written without its vector takes the one its content already has (the vectors are keyed by content).
    const vector = embedding ?? this.#context.vectorOf(contentHash);
    if (vector) this.#codes.set(key, vector);
  }
}

/** What removing a document for its replacement leaves: the chunks kept by node id (their keys), its position. */
interface Replaced {
  kept: Map<string, number>;
  position: number | undefined;
}

interface SourceChunkRow {
  key: number;
  node_id: string;
  content_hash: string;
}

function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
