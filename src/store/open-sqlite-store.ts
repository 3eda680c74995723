import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { MetadataMode, type TextNode } from "../schema/text-node.js";
import { SqliteIndexStore } from "./sqlite-index-store.js";
import {
  IMAGES_INDEX,
  SCHEMA,
  SOURCES_BYTES_HASH,
  SOURCES_VERSION,
  SQLITE_STORE_VERSION,
  VECTORS_TABLE,
} from "./sqlite-schema.js";
import { fillVectorCodes, VECTOR_CODES_TABLE, VectorCodeStatements } from "./sqlite-vector-codes.js";

/**
 * The layouts a file is migrated from when opened, rather than rebuilt, each to the next: a layout 3 file's vectors
 * table is copied into the new one (with rowids) and their codes are written; a layout 4 file's sources rows get
 * the `bytes_hash` column; a layout 5 file gets the sources rows' version.
 */
const MIGRATIONS: ReadonlyMap<number, (db: BetterSqlite3.Database, file: string) => void> = new Map([
  [
    3,
    (db: BetterSqlite3.Database, file: string) => {
      db.exec(`ALTER TABLE vectors RENAME TO vectors_layout_3;
        ${VECTORS_TABLE}
        INSERT INTO vectors (content_hash, embedding) SELECT content_hash, embedding FROM vectors_layout_3;
        DROP TABLE vectors_layout_3;
        ${VECTOR_CODES_TABLE}`);
      const keepsVectors =
        db.prepare("SELECT value FROM meta WHERE key = 'storeVectors'").pluck().get() === "1";
      if (keepsVectors) fillVectorCodes(new VectorCodeStatements(db), file);
    },
  ],
  [4, (db: BetterSqlite3.Database) => db.exec(SOURCES_BYTES_HASH)],
  [5, (db: BetterSqlite3.Database) => db.exec(SOURCES_VERSION)],
]);

// Opening the SQLite index file: its place in the folder, WAL, the layout check, and the errors of a file that is
// not ours. The store itself (reads and writes on an open connection) is sqlite-index-store.ts.

/**
 * Marks the `index_load` error of an index written in another format or layout (`isOtherIndexVersion`): a cache
 * can simply be rebuilt (the CLI does, with a notice), while a damaged index of this version should be looked at.
 */
export const OTHER_INDEX_VERSION = Symbol.for("ragsynth.index.otherVersion");

/** The terms the index build writes for a chunk: {@link lexicalDocumentTerms} of its embed content. */
function storeTerms(node: TextNode): string[] {
  return lexicalDocumentTerms(node.getContent(MetadataMode.EMBED));
}

/** The file an index is kept in, inside its folder: one SQLite database (WAL mode), readable with `sqlite3`. */
export const SQLITE_INDEX_FILE = "ragsynth-index.sqlite";

// better-sqlite3 is CommonJS with a native addon: required, so the CLI's CommonJS bundle loads it as it is.
const require = createRequire(import.meta.url);

/**
 * The most a connection's page cache holds, in KiB (SQLite's default is 2,000): allocated as pages are read, so an
 * ask, which reads a few pages, holds no more than before. A build's group writes the postings of some twenty
 * thousand terms spread over the whole table; with 2 MB of cache their pages were read again from the file during
 * each group and spilled to the WAL before its commit.
 */
const CACHE_KIB = 64 * 1024;
/**
 * WAL pages after which a commit copies them into the database file (SQLite's default is 1,000, ~4 MB). A group of a
 * large build dirties more than that, so every commit also checkpointed: each term's pages, rewritten by every group,
 * went to the file (and were synced) once per group instead of once per ~100 MB of WAL. Measured by hand, outside
 * the bench (whose scale figure did not show it on a slower day: BENCHMARKS.md), with both settings the
 * 306.5 MB corpus's first index (2 cores, interleaved pairs) took 72.0 and 73.9 s against 78.2 and 79.4 with two
 * threads (system time 8.7 s against 13.6), 109.2 and 108.7 s against 111.4 and 117.1 without (7.8–8.2 s against
 * 12.6–12.9). The larger WAL alone, with the default cache, did not help (system time 16.4 s: pages read back from
 * it); 16 MiB of cache took it to 10.5–11.5 s. Peak memory rose by the cache's use (the 30.6 MB corpus's first
 * index without threads: 497 MB against 473). The last connection to close checkpoints the rest and removes the WAL,
 * as before.
 */
const WAL_CHECKPOINT_PAGES = 25_000;

/**
 * Opens (creating when missing) the SQLite index in `dir`. WAL mode: readers never wait for a writer and see the
 * last committed state; a second writer waits up to `busyTimeoutMs` for the first. A file of another layout version
 * (`SQLITE_STORE_VERSION`) is emptied when `replaceOtherLayout` (a rebuild), else refused with an error that
 * `OTHER_INDEX_VERSION` marks.
 * @throws RagsynthError `index_load` when the file is not a SQLite database (or a damaged one), or one of another
 *   layout; the file system's or SQLite's own error when the folder or file cannot be created or opened
 */
export function openSqliteStore(
  dir: string,
  {
    busyTimeoutMs = 30_000,
    replaceOtherLayout = false,
    analyze = storeTerms,
    _internal = {},
  }: {
    busyTimeoutMs?: number;
    /** Whether a file of another layout version is emptied (to be rebuilt) rather than refused. */
    replaceOtherLayout?: boolean;
    /**
     * The terms of a stored chunk, as they were given when it was written (`ChunkInput.terms`): a removed chunk's
     * postings are found by analyzing its node again.
     * @default the lexical analyzer over the node's embed content (what the index build writes)
     */
    analyze?: (node: TextNode) => readonly string[];
    /** Test seam: the `BLOCK_POSTINGS` of this connection's writes (small, so tests cross block boundaries). */
    _internal?: { blockPostings?: number };
  } = {},
): SqliteIndexStore {
  const file = path.join(dir, SQLITE_INDEX_FILE);
  let db: BetterSqlite3.Database;
  try {
    mkdirSync(dir, { recursive: true });
    const Database = require("better-sqlite3") as typeof BetterSqlite3;
    db = new Database(file, { timeout: busyTimeoutMs });
    useWal(db, busyTimeoutMs);
    db.pragma("synchronous = NORMAL");
    db.pragma(`cache_size = -${CACHE_KIB}`);
    db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
    const other = prepareLayout(db, file, replaceOtherLayout);
    if (other !== undefined) {
      db.close();
      throw Object.assign(
        new RagsynthError({
          code: "index_load",
          message: `The index ${file} was written by another ragsynth (index layout ${other}, this one reads ${SQLITE_STORE_VERSION}). Rebuild it (fromDocumentsCached with rebuild, or ragsynth index --rebuild).`,
        }),
        { [OTHER_INDEX_VERSION]: `sqlite-${other}` },
      );
    }
  } catch (error) {
    if (RagsynthError.isInstance(error)) throw error;
    const code = (error as { code?: unknown }).code;
    // A file that is not a SQLite database (or a damaged one) is an index to look at or rebuild; any other failure
    // (a folder that cannot be written) is the caller's to report as it reads or writes.
    if (code !== "SQLITE_NOTADB" && code !== "SQLITE_CORRUPT") throw error;
    throw new RagsynthError({
      code: "index_load",
      message: `The index ${file} is not a readable SQLite database (${(error as Error).message}). Delete it to rebuild the index from the documents.`,
      cause: error,
    });
  }
  return new SqliteIndexStore(db, file, analyze, _internal.blockPostings);
}

/**
 * Switches the file to WAL (once per file; later opens find it set). Switching needs the file to itself, and SQLite
 * answers SQLITE_BUSY at once, without its busy handler, while another process creates or writes the same new
 * index (two asks started together on one folder): so it is retried, with short waits, up to the busy timeout.
 */
function useWal(db: BetterSqlite3.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

/**
 * Creates the tables of a new file, or migrates a file of a layout in `MIGRATIONS`; the layout version of a file
 * of another one that is kept (not replaced).
 */
function prepareLayout(
  db: BetterSqlite3.Database,
  file: string,
  replaceOtherLayout: boolean,
): number | undefined {
  const version = db.pragma("user_version", { simple: true }) as number;
  const migrate = MIGRATIONS.get(version);
  if (migrate) {
    // One transaction: another process opening the file meanwhile waits, then finds it migrated.
    db.transaction(() => {
      if (db.pragma("user_version", { simple: true }) !== version) return;
      migrate(db, file);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
    return prepareLayout(db, file, replaceOtherLayout);
  }
  if (version !== 0 && version !== SQLITE_STORE_VERSION && !replaceOtherLayout) return version;
  if (version !== SQLITE_STORE_VERSION) {
    db.transaction(() => {
      if (version !== 0) {
        for (const { name } of db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
          .all() as { name: string }[])
          db.exec(`DROP TABLE IF EXISTS "${name.replaceAll('"', '""')}"`);
      }
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SQLITE_STORE_VERSION}`);
    }).immediate();
  } else if (
    !db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'chunks_images'").get()
  ) {
    // A file of this layout written before the index of images: added once (one scan of the chunks). Should it fail
    // (the file cannot be written now), the question is answered by scanning, as before.
    try {
      db.exec(IMAGES_INDEX);
    } catch {
      // Left for a later open.
    }
  }
  return undefined;
}
