// What opening a folder's index takes (FolderIndexOptions) and what listing it gives the build (FolderRead):
// folder-read.ts lists a folder, indexed-folder-read.ts takes the stored index as it is, folder-index.ts builds.
import type { Embedder } from "../embedding/types.js";
import type { RagsynthError } from "../errors/ragsynth-error.js";
import type { TextNode } from "../schema/text-node.js";
import type { IndexStore } from "../store/index-store.js";
import type {
  BuildReadDocument,
  FromDocumentsCachedOptions,
  IndexBuildStats,
  NodeParser,
} from "./build-index-options.js";
import type { TakenBuildLease } from "./build-lease.js";
import type { FolderIndexStats } from "./folder-index-stats.js";

/** How a folder is walked: globs, endings read as a built-in format, and what is read that is skipped by default. */

export interface FolderWalk {
  include: string[];
  exclude: string[];
  /** Endings mapped to built-in formats: `{ ".mdx": "markdown" }`. */
  readAs: Record<string, string>;
  noIgnore: boolean;
  hidden: boolean;
  followSymlinks: boolean;
}

/** The steps of opening, for a progress line; a terminal's progress display fits it. */
export interface IndexProgress {
  start(label: string, total?: number): void;
  update(done: number): void;
  clear(): void;
}

/** Options of {@link openFolderIndex} and {@link refreshFolderIndex}. */
export interface FolderIndexOptions {
  /** Files and folders to read (each must exist). */
  paths: readonly string[];
  walk: FolderWalk;
  /** Where the index is kept; default `.ragsynth/` beside the documents ({@link defaultCacheDir}). */
  cacheDir: string | undefined;
  /** A PostgreSQL URL (`postgres://…`) the index is kept in instead of a folder; `cacheDir` is then not used. */
  store?: string | undefined;
  embedModel: Embedder;
  /** How documents become chunks. @default new BlockSplitter() (1,024 tokens, 200 overlap) */
  splitter?: NodeParser | undefined;
  /** Worker threads that parse the files and split the documents (`FromDocumentsCachedOptions.threads`). @default by the cores */
  threads?: number | undefined;
  /** The embedder's name on the progress line (`hashing`, a model spec). */
  embedLabel: string;
  /** Build anew instead of on the stored index. */
  rebuild: boolean;
  /**
   * `false`: query the stored index as it was last built, without listing or reading a file (changes since are not
   * seen; `walk` is not used). It must be there, built with `embedModel` and `splitter`: `ragsynth index` builds it.
   * Not with `rebuild`. @default true
   */
  refresh?: boolean | undefined;
  /**
   * When another live process is building this folder's SQLite index (it holds the build lease, `build-lease.ts`):
   * `"answer-as-is"` queries what that build has committed, as `refresh: false` does, with a notice (`kind:
   * "building"`), and writes nothing (`openFolderIndex` only: an interactive question wants an answer now);
   * `"wait"` says so (`kind: "waiting"`), waits for that build to end (or the signal), then builds on what it wrote
   * (the CLI's `index` and `eval`: the whole index, without reading and writing the same files twice); `"build"`
   * builds the same files beside it. Not for a PostgreSQL store (no lease), nor with `rebuild`. @default "build"
   */
  whileAnotherBuilds?: "build" | "wait" | "answer-as-is" | undefined;
  /** Relative paths are resolved against it; sources are named relative to it. */
  cwd: string;
  /** Where an index goes when the default folder is read-only (`<userCacheDir>/<hash of the folder>`). */
  userCacheDir: string;
  signal: AbortSignal;
  progress?: IndexProgress | undefined;
  /** The build's {@link FromDocumentsCachedOptions.onBuildStart}: what it has to split, before it starts. */
  onBuildStart?: FromDocumentsCachedOptions["onBuildStart"] | undefined;
  /**
   * What the caller should tell its user: the index went to a fallback folder, another format's is rebuilt, one
   * built with other settings (embedding model, analyzer, splitter) is built again, the files are named from another
   * folder, or another process is building the index, so the answer comes from what it
   * has written so far (`whileAnotherBuilds`).
   */
  onNotice?:
    | ((
        notice:
          | { kind: "read-only" | "other-version" | "renamed" | "building" | "waiting"; message: string }
          /** `builtWith`: what the index there was built with instead (`another BM25 analyzer (version 5; now 6)`). */
          | { kind: "other-build"; message: string; builtWith: string },
      ) => void)
    | undefined;
}

/** The documents listed for an index, with what building it needs. */
export interface FolderRead {
  /** The cache folder, or the PostgreSQL URL (printed only through `storeLabel`). */
  folder: string;
  embedModel: Embedder;
  splitter: NodeParser | undefined;
  threads: number | undefined;
  embedLabel: string;
  /**
   * Every file to index, by its metadata only (empty text): `readDocument` reads one when the build reaches it, so
   * the texts of a group are held at a time, not the folder's. Those the stored index holds unchanged are never read.
   * Made when first asked for: an unchanged index whose listing was remembered (`listing-snapshot.ts`) is queried
   * without them.
   */
  documents(): TextNode[];
  /**
   * When only a few files changed since a remembered listing whose rows the store still holds (their version says
   * so): those documents (listed again) and every document's id in order. The build then reads and writes their rows
   * alone and keeps the others' as they are; `documents()` is still every file (for an index in memory).
   */
  onlyChanged?: { documents: TextNode[]; ids: readonly string[] } | undefined;
  readDocument: BuildReadDocument;
  /** True when the stored index must not be built on (`rebuild`, or a cache of another index format). */
  rebuild: boolean;
  /**
   * What the build would report when the stored index holds every listed document unchanged (same files, order,
   * sizes, times and readers), found from the rows the listing read; `undefined` when there is something to do.
   */
  unchanged: IndexBuildStats | undefined;
  /**
   * The store the fingerprints were read from, left open (`undefined` when there was none to read, or `rebuild`):
   * an ask queries it without opening it again, and a build writes to it without opening it again and reading its
   * rows a second time. Whoever takes this FolderRead closes it (`buildFolderIndex` hands it to the index or the
   * build, `refreshFolderIndex` closes it when there is nothing to build).
   */
  openStore: IndexStore | undefined;
  /**
   * The folder's build lease, when the listing took it (`whileAnotherBuilds: "wait"`): the build holds it instead of
   * taking one, and whoever takes this FolderRead releases it (`buildFolderIndex` when its write settles or it has
   * nothing to write, `refreshFolderIndex` when there is nothing to build).
   */
  lease?: TakenBuildLease;
  /**
   * The folder the documents' relative `file_path`s are named from (relative links and images in them resolve
   * against it): the working folder, or the one the stored index named them from when it runs from another.
   */
  namesFrom: string;
  /** The counts of what was read and skipped (complete once the build is done), with the build's. */
  stats(build: IndexBuildStats): FolderIndexStats;
  /** The error to throw when every file listed turned out unreadable, so nothing was indexed. */
  nothingRead(): RagsynthError;
  /**
   * Keeps what this run learned by reading files (those it skipped; on a shared store, those whose bytes were the
   * store's) for the next run, so it does not read them again: beside the index, or for a PostgreSQL store in this
   * machine's cache folder. Called once the index is written.
   */
  keepReadMemory(): void;
  /**
   * Removes what this run made when it indexed nothing: the cache folder when it made it, else the index file when
   * it made that (an index that was there stays, emptied, as the documents now are). A PostgreSQL store is kept.
   */
  forgetOwnIndex(): Promise<void>;
}

/** Progress that shows nothing (no progress given). */
export const SILENT_PROGRESS: IndexProgress = { start() {}, update() {}, clear() {} };
