import type { StoredChunk, StoredSource } from "./index-store.js";
import { damaged, decodeNode, withFileFacts } from "./node-row.js";

/**
 * A `sources` row as the statement reads it: position, id, content hash, size, time, reader, chunk count (its bytes
 * hash is read by `SqliteIndexStore.bytesHashes`: 64 characters a file that an unchanged ask does not need).
 */
export type SourceRow = [
  position: number,
  id: string,
  contentHash: string,
  size: number | null,
  lastModifiedAt: string | null,
  reader: string | null,
  chunkCount: number,
];

/** A `chunks` row as the store's chunk statements read it, with its file's size and time (NULL without a file). */
export interface ChunkRow {
  key: number;
  node: Buffer | string;
  content_hash: string;
  size: number | null;
  last_modified_at: string | null;
}

export function sourceOfRow([
  ,
  id,
  contentHash,
  size,
  lastModifiedAt,
  reader,
  chunkCount,
]: SourceRow): StoredSource {
  const source: StoredSource = { id, contentHash, chunkCount };
  if (size !== null) source.size = size;
  if (lastModifiedAt !== null) source.lastModifiedAt = lastModifiedAt;
  if (reader !== null) source.reader = reader;
  return source;
}

/** The documents of `rows`, in their order: position, then id as SQLite orders text (by its UTF-8 bytes). */
export function sourcesOfRows(rows: SourceRow[]): StoredSource[] {
  rows.sort((a, b) => a[0] - b[0] || Buffer.compare(Buffer.from(a[1]), Buffer.from(b[1])));
  const sources: StoredSource[] = new Array(rows.length);
  for (let index = 0; index < rows.length; index++) sources[index] = sourceOfRow(rows[index] as SourceRow);
  return sources;
}

/**
 * A chunk from its row, its node decoded (a damaged one is an error naming `location`), with its file's current
 * size and time.
 */
export function chunkOfRow(row: ChunkRow, location: string): StoredChunk {
  const node = withFileFacts(decodeNode(row.node, location), {
    size: row.size,
    lastModifiedAt: row.last_modified_at,
  });
  return { key: row.key, node, contentHash: row.content_hash };
}

/** A sources row's node ids: its `node_ids` JSON, or `<id>#0` … when NULL. */
export function nodeIdsOfRow(id: string, count: number, stored: string | null, location: string): string[] {
  if (stored === null) return Array.from({ length: count }, (_, index) => `${id}#${index}`);
  let ids: unknown;
  try {
    ids = JSON.parse(stored);
  } catch (error) {
    throw damaged(location, "a document whose node ids are not valid JSON", error);
  }
  if (!Array.isArray(ids) || !ids.every((item) => typeof item === "string"))
    throw damaged(location, "a document whose node ids are not a list of strings");
  return ids;
}
