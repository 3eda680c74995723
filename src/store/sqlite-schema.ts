/** The layout version of the SQLite index; a file with another one is rebuilt. */
export const SQLITE_STORE_VERSION = 2;

/**
 * The tables. Chunks are keyed by an integer (`key`, insertion order) that postings point to; a chunk's `length`
 * (its term count) is copied into its postings so a BM25 query reads only its terms' postings. `terms.df` and the
 * `stats` row are kept exact by the same transaction that adds or removes chunks. Vectors are keyed by content
 * hash: they double as the embedding cache (an edited file re-embeds only its changed chunks).
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
  id TEXT PRIMARY KEY,
  position INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  size INTEGER,
  last_modified_at TEXT,
  reader TEXT,
  chunk_count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
  key INTEGER PRIMARY KEY AUTOINCREMENT,
  node_id TEXT NOT NULL UNIQUE,
  source_id TEXT,
  position INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  length INTEGER NOT NULL,
  is_image INTEGER NOT NULL,
  node BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_source ON chunks (source_id, position);
CREATE INDEX IF NOT EXISTS chunks_by_hash ON chunks (content_hash);
CREATE TABLE IF NOT EXISTS terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS postings (
  term_id INTEGER NOT NULL,
  chunk INTEGER NOT NULL,
  tf INTEGER NOT NULL,
  length INTEGER NOT NULL,
  PRIMARY KEY (term_id, chunk)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS postings_by_chunk ON postings (chunk);
CREATE TABLE IF NOT EXISTS vectors (content_hash TEXT PRIMARY KEY, embedding BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stats (id INTEGER PRIMARY KEY CHECK (id = 0), documents INTEGER NOT NULL, total_length INTEGER NOT NULL);
INSERT OR IGNORE INTO stats (id, documents, total_length) VALUES (0, 0, 0);
`;
