import type { Database, Statement } from "better-sqlite3";

/** The store's SQL, prepared once per connection. */
export class SqliteStatements {
  readonly meta: Statement;
  readonly setMeta: Statement;
  readonly sources: Statement;
  readonly sourceNodeIds: Statement;
  readonly sourceChunks: Statement;
  readonly deleteSource: Statement;
  readonly insertSource: Statement;
  readonly setPosition: Statement;
  readonly stats: Statement;
  readonly addStats: Statement;
  readonly termFrequency: Statement;
  readonly postings: Statement;
  readonly addTerm: Statement;
  readonly insertPosting: Statement;
  readonly decrementFrequencies: Statement;
  readonly dropUnusedTerms: Statement;
  readonly deletePostings: Statement;
  readonly chunkByKey: Statement;
  readonly chunkByNodeId: Statement;
  readonly chunkKeyByNodeId: Statement;
  readonly chunkLength: Statement;
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
    this.sources = db.prepare(
      "SELECT id, content_hash, size, last_modified_at, reader, chunk_count FROM sources ORDER BY position, id",
    );
    this.sourceNodeIds = db.prepare("SELECT node_id FROM chunks WHERE source_id = ? ORDER BY position");
    this.sourceChunks = db.prepare("SELECT key, content_hash FROM chunks WHERE source_id = ?");
    this.deleteSource = db.prepare("DELETE FROM sources WHERE id = ?");
    this.insertSource = db.prepare(
      `INSERT INTO sources (id, position, content_hash, size, last_modified_at, reader, chunk_count)
       VALUES (?, (SELECT coalesce(max(position), -1) + 1 FROM sources), ?, ?, ?, ?, ?)`,
    );
    this.setPosition = db.prepare("UPDATE sources SET position = ? WHERE id = ?");
    this.stats = db.prepare("SELECT documents, total_length FROM stats WHERE id = 0");
    this.addStats = db.prepare(
      "UPDATE stats SET documents = documents + ?, total_length = total_length + ? WHERE id = 0",
    );
    this.termFrequency = db.prepare("SELECT df FROM terms WHERE term = ?");
    this.postings = db.prepare(
      `SELECT p.chunk, p.tf, p.length FROM postings p
       WHERE p.term_id = (SELECT id FROM terms WHERE term = ?) ORDER BY p.chunk`,
    );
    this.addTerm = db.prepare(
      "INSERT INTO terms (term, df) VALUES (?, 1) ON CONFLICT (term) DO UPDATE SET df = df + 1 RETURNING id",
    );
    this.insertPosting = db.prepare("INSERT INTO postings (term_id, chunk, tf, length) VALUES (?, ?, ?, ?)");
    this.decrementFrequencies = db.prepare(
      "UPDATE terms SET df = df - 1 WHERE id IN (SELECT term_id FROM postings WHERE chunk = ?)",
    );
    this.dropUnusedTerms = db.prepare(
      "DELETE FROM terms WHERE df <= 0 AND id IN (SELECT term_id FROM postings WHERE chunk = ?)",
    );
    this.deletePostings = db.prepare("DELETE FROM postings WHERE chunk = ?");
    this.chunkByKey = db.prepare("SELECT key, node, content_hash FROM chunks WHERE key = ?");
    this.chunkByNodeId = db.prepare("SELECT key, node, content_hash FROM chunks WHERE node_id = ?");
    this.chunkKeyByNodeId = db.prepare("SELECT key FROM chunks WHERE node_id = ?");
    this.chunkLength = db.prepare("SELECT length FROM chunks WHERE key = ?");
    this.chunksAfter = db.prepare(
      "SELECT key, node, content_hash FROM chunks WHERE key > ? ORDER BY key LIMIT ?",
    );
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
