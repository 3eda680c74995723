import type { Database, Statement } from "better-sqlite3";

/** A chunk's row with its file's size and time (`ChunkRow`). */
const CHUNK_WITH_FACTS = `SELECT c.key, c.node, c.content_hash, s.size, s.last_modified_at
  FROM chunks c LEFT JOIN sources s ON s.id = c.source_id`;

/** The store's SQL, prepared once per connection. */
export class SqliteStatements {
  readonly meta: Statement;
  readonly setMeta: Statement;
  readonly sources: Statement;
  readonly source: Statement;
  readonly sourcesVersion: Statement;
  readonly sourceNodeIds: Statement;
  readonly allSourceNodeIds: Statement;
  readonly chunkNodeIdsOfSource: Statement;
  readonly setSourceNodeIds: Statement;
  readonly chunkSource: Statement;
  readonly sourceChunks: Statement;
  readonly keepChunk: Statement;
  readonly deleteSource: Statement;
  readonly insertSource: Statement;
  readonly setPosition: Statement;
  readonly setFingerprint: Statement;
  readonly bytesHash: Statement;
  readonly stats: Statement;
  readonly addStats: Statement;
  readonly termFrequency: Statement;
  readonly postingBlocks: Statement;
  readonly lastBlock: Statement;
  readonly anyPosting: Statement;
  readonly blockHolding: Statement;
  readonly insertBlock: Statement;
  readonly updateBlock: Statement;
  readonly deleteBlock: Statement;
  readonly chunkRemoval: Statement;
  readonly chunkByKey: Statement;
  readonly chunkByNodeId: Statement;
  readonly chunkKeyByNodeId: Statement;
  readonly chunksAfter: Statement;
  readonly insertChunk: Statement;
  readonly deleteChunk: Statement;
  readonly vector: Statement;
  readonly vectorsAfter: Statement;
  readonly insertVector: Statement;
  readonly dropUnusedVector: Statement;
  readonly anyImage: Statement;

  constructor(db: Database) {
    this.meta = db.prepare("SELECT key, value FROM meta");
    this.setMeta = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
    // Unordered, as raw rows: sorting 6,220 rows in SQLite (a temporary B-tree) took longer than reading them.
    this.sources = db
      .prepare("SELECT position, id, content_hash, size, last_modified_at, reader, chunk_count FROM sources")
      .raw();
    this.source = db
      .prepare(
        "SELECT position, id, content_hash, size, last_modified_at, reader, chunk_count FROM sources WHERE id = ?",
      )
      .raw();
    this.sourcesVersion = db.prepare("SELECT version FROM sources_version WHERE id = 0");
    this.sourceNodeIds = db.prepare("SELECT chunk_count, node_ids FROM sources WHERE id = ?");
    this.allSourceNodeIds = db.prepare("SELECT id, chunk_count, node_ids FROM sources");
    this.chunkNodeIdsOfSource = db.prepare(
      "SELECT node_id FROM chunks WHERE source_id = ? ORDER BY position",
    );
    this.setSourceNodeIds = db.prepare("UPDATE sources SET chunk_count = ?, node_ids = ? WHERE id = ?");
    this.chunkSource = db.prepare("SELECT source_id FROM chunks WHERE key = ?");
    this.sourceChunks = db.prepare("SELECT key, node_id, content_hash FROM chunks WHERE source_id = ?");
    this.keepChunk = db.prepare("UPDATE chunks SET position = ?, is_image = ?, node = ? WHERE key = ?");
    this.deleteSource = db.prepare("DELETE FROM sources WHERE id = ? RETURNING position");
    // At the position given (a replaced document keeps its place), else after the last.
    this.insertSource = db.prepare(
      `INSERT INTO sources (id, position, content_hash, size, last_modified_at, reader, chunk_count, node_ids, bytes_hash)
       VALUES (?, coalesce(?, (SELECT coalesce(max(position), -1) + 1 FROM sources)), ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.setPosition = db.prepare("UPDATE sources SET position = ? WHERE id = ?");
    this.setFingerprint = db.prepare("UPDATE sources SET size = ?, last_modified_at = ? WHERE id = ?");
    this.bytesHash = db.prepare("SELECT bytes_hash FROM sources WHERE id = ?").pluck();
    this.stats = db.prepare("SELECT documents, total_length FROM stats WHERE id = 0");
    this.addStats = db.prepare(
      "UPDATE stats SET documents = documents + ?, total_length = total_length + ? WHERE id = 0",
    );
    this.termFrequency = db.prepare("SELECT sum(count) FROM postings WHERE term = ?");
    this.postingBlocks = db.prepare("SELECT count, block FROM postings WHERE term = ? ORDER BY first_key");
    this.lastBlock = db.prepare(
      "SELECT first_key, count, block FROM postings WHERE term = ? ORDER BY first_key DESC LIMIT 1",
    );
    this.anyPosting = db.prepare("SELECT 1 FROM postings LIMIT 1");
    this.blockHolding = db.prepare(
      `SELECT first_key, count, block FROM postings WHERE term = ? AND first_key <= ?
       ORDER BY first_key DESC LIMIT 1`,
    );
    this.insertBlock = db.prepare("INSERT INTO postings (term, first_key, count, block) VALUES (?, ?, ?, ?)");
    this.updateBlock = db.prepare(
      "UPDATE postings SET count = ?, block = ? WHERE term = ? AND first_key = ?",
    );
    this.deleteBlock = db.prepare("DELETE FROM postings WHERE term = ? AND first_key = ?");
    this.chunkRemoval = db.prepare("SELECT length, node FROM chunks WHERE key = ?");
    // With the file's size and time from its sources row (node-row.ts, withFileFacts).
    this.chunkByKey = db.prepare(`${CHUNK_WITH_FACTS} WHERE c.key = ?`);
    this.chunkByNodeId = db.prepare(`${CHUNK_WITH_FACTS} WHERE c.node_id = ?`);
    this.chunkKeyByNodeId = db.prepare("SELECT key FROM chunks WHERE node_id = ?");
    this.chunksAfter = db.prepare(`${CHUNK_WITH_FACTS} WHERE c.key > ? ORDER BY c.key LIMIT ?`);
    this.insertChunk = db.prepare(
      `INSERT INTO chunks (node_id, source_id, position, content_hash, length, is_image, node)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.deleteChunk = db.prepare("DELETE FROM chunks WHERE key = ?");
    this.vector = db.prepare("SELECT embedding FROM vectors WHERE content_hash = ?");
    this.vectorsAfter = db.prepare(
      `SELECT c.key, v.embedding FROM chunks c JOIN vectors v ON v.content_hash = c.content_hash
       WHERE c.key > ? ORDER BY c.key LIMIT ?`,
    );
    this.insertVector = db.prepare("INSERT OR IGNORE INTO vectors (content_hash, embedding) VALUES (?, ?)");
    this.dropUnusedVector = db.prepare(
      "DELETE FROM vectors WHERE content_hash = ? AND NOT EXISTS (SELECT 1 FROM chunks WHERE content_hash = ?)",
    );
    this.anyImage = db.prepare("SELECT 1 FROM chunks WHERE is_image = 1 LIMIT 1");
  }
}
