import { VECTOR_CODES_TABLE } from "./sqlite-vector-codes.js";

/**
 * The layout version of the SQLite index; a file with another one is rebuilt, except a version 3 or 4 file, which
 * is migrated when opened (`open-sqlite-store.ts`).
 * 2: a row per posting; 3: postings in blocks per term, node ids on the sources rows; 4: vector codes, vectors
 * with rowids; 5: the SHA-256 of each file's bytes on its sources row (`bytes_hash`); 6: the sources rows'
 * version (`SOURCES_VERSION`).
 */
export const SQLITE_STORE_VERSION = 6;

/** What layout 5 adds to a layout 4 file (its rows' `bytes_hash` NULL until their files are read again). */
export const SOURCES_BYTES_HASH = "ALTER TABLE sources ADD COLUMN bytes_hash TEXT;";

/**
 * A number that moves with every change to the `sources` rows, kept by triggers (so by every writer, whatever its
 * code), starting from a random one in each new file: a reader that remembers the rows with their version knows
 * them unchanged by reading one row (a folder's remembered listing, `listing-snapshot.ts`). What layout 6 adds to a
 * layout 5 file.
 */
export const SOURCES_VERSION = `
CREATE TABLE IF NOT EXISTS sources_version (id INTEGER PRIMARY KEY CHECK (id = 0), version INTEGER NOT NULL);
INSERT OR IGNORE INTO sources_version (id, version) VALUES (0, abs(random() % 9007199254740991));
CREATE TRIGGER IF NOT EXISTS sources_inserted AFTER INSERT ON sources BEGIN UPDATE sources_version SET version = version + 1; END;
CREATE TRIGGER IF NOT EXISTS sources_updated AFTER UPDATE ON sources BEGIN UPDATE sources_version SET version = version + 1; END;
CREATE TRIGGER IF NOT EXISTS sources_deleted AFTER DELETE ON sources BEGIN UPDATE sources_version SET version = version + 1; END;
`;

/**
 * Vectors by content hash, in a table with rowids and an index on the hash. Not WITHOUT ROWID: a row there lives in
 * an index B-tree, whose pages keep at most ~1 KB of a row (4 KB pages), so every 384-d vector (1.5 KB) spilled to
 * an overflow page, and reading one took 22–58 µs against 7–11 µs here (500 random vectors of a 20,000-vector
 * index; dense search reads hundreds per query).
 */
export const VECTORS_TABLE =
  "CREATE TABLE IF NOT EXISTS vectors (id INTEGER PRIMARY KEY, content_hash TEXT NOT NULL UNIQUE, embedding BLOB NOT NULL);";

/**
 * The chunks that are or reference images, so "any image?" (asked by every query) reads no chunk row when there is
 * none: without it, a store with no image scanned every chunk (seconds at 10^6 chunks). Files written before it
 * get it when opened (`open-sqlite-store.ts`).
 */
export const IMAGES_INDEX = "CREATE INDEX IF NOT EXISTS chunks_images ON chunks (key) WHERE is_image = 1;";

/**
 * The tables. Chunks are keyed by an integer (`key`, insertion order, never reused) that postings point to. A term's
 * postings are blocks of varints (`postings-codec.ts`) keyed by the term and their first key, each posting with the
 * chunk's length, so a BM25 query reads only its terms' blocks; a term's document frequency is the sum of its blocks'
 * `count`s, and there is no other table of terms (each term is written about once). A write appends a term's new
 * postings to its last block while that holds fewer than `BLOCK_POSTINGS`, else starts blocks of at most
 * 8 × `BLOCK_POSTINGS`. A removed chunk's
 * terms are found again by analyzing its stored node, so no index over postings by chunk is kept. The `stats` row is
 * kept exact by the same transaction that adds or removes chunks.
 * A document's chunk node ids are on its `sources` row (`node_ids`, a JSON array; NULL for the usual `<id>#0` …
 * `<id>#<chunk_count - 1>`), so listing the documents with their chunks reads no chunk row.
 * Vectors are keyed by content hash: they double as the embedding cache (an edited file re-embeds only its changed
 * chunks). Their sign codes are kept by chunk key, in pages (`sqlite-vector-codes.ts`), for dense search.
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
  chunk_count INTEGER NOT NULL,
  node_ids TEXT,
  bytes_hash TEXT
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
${IMAGES_INDEX}
CREATE TABLE IF NOT EXISTS postings (
  term TEXT NOT NULL,
  first_key INTEGER NOT NULL,
  count INTEGER NOT NULL,
  block BLOB NOT NULL,
  PRIMARY KEY (term, first_key)
) WITHOUT ROWID;
${VECTORS_TABLE}
${VECTOR_CODES_TABLE}
CREATE TABLE IF NOT EXISTS stats (id INTEGER PRIMARY KEY CHECK (id = 0), documents INTEGER NOT NULL, total_length INTEGER NOT NULL);
INSERT OR IGNORE INTO stats (id, documents, total_length) VALUES (0, 0, 0);
${SOURCES_VERSION}`;
