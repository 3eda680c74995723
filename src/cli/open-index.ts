import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { FolderIndexOptions, FolderWalk } from "../index-store/folder-read-options.js";
import { BlockSplitter } from "../splitter/block-splitter.js";
import { userCacheDir } from "../util/user-cache-dir.js";
import type { CommandContext } from "./io.js";
import { leanHeapForBuild } from "./lean-heap.js";
import type { EmbedChoice } from "./models.js";
import type { Progress } from "./progress.js";
import { storeFlag } from "./store-flag.js";
import { UsageError } from "./usage-error.js";

/** What the commands over documents pass: the paths and walk flags, `--cache-dir`/`--store`, `--rebuild`, the embedder. */
export interface IndexFlags {
  paths: string[];
  walk: FolderWalk;
  cacheDir: string | undefined;
  /** `--store`: a folder or a PostgreSQL URL (see store-flag.ts). */
  store: string | undefined;
  embed: EmbedChoice;
  rebuild: boolean;
  /**
   * `--chunk-size`, `--chunk-overlap` as the splitter takes them (command-options.ts checks and completes them), or
   * undefined for BlockSplitter's defaults.
   */
  chunking?: { chunkSize: number; chunkOverlap: number } | undefined;
  /** `--threads`: worker threads that split files (by the cores when not given). */
  threads?: number | undefined;
  /** `--no-refresh` (ask, plan, eval): answer from the index as it was built, no file listed or read. */
  noRefresh?: boolean | undefined;
}

/**
 * The index room's folder opener (`openFolderIndex` for ask, plan and eval, which await `folderIndexSaved`;
 * `refreshFolderIndex` for index) with the command line's doors: every path checked first (a missing one is a
 * mistake on the command line, exit 2), notices and progress on stderr, the user's cache folder as fallback.
 */
export async function folderIndexOptions(
  { paths, walk, embed, rebuild, chunking, threads, noRefresh, ...place }: IndexFlags,
  { io, signal }: CommandContext,
  progress: Progress,
): Promise<FolderIndexOptions> {
  await checkPaths(paths, io.cwd);
  if (noRefresh && rebuild) {
    throw new UsageError(
      "--no-refresh answers from the index as it was built, and --rebuild builds it again: give one of them.",
      "Example: ragsynth index docs --rebuild, then ragsynth ask docs --no-refresh -q …",
    );
  }
  const splitter = chunking ? new BlockSplitter(chunking) : undefined;
  const { url, cacheDir } = storeFlag(place.store, place.cacheDir);
  return {
    paths,
    walk,
    cacheDir,
    store: url,
    embedModel: embed.create(),
    ...(splitter ? { splitter } : {}),
    ...(threads === undefined ? {} : { threads }),
    embedLabel: embed.label,
    rebuild,
    ...(noRefresh ? { refresh: false } : {}),
    cwd: io.cwd,
    userCacheDir: userCacheDir(io.env),
    signal,
    progress,
    onBuildStart: ({ bytes }) => leanHeapForBuild(bytes),
    onNotice: ({ kind, message }) =>
      io.stderr.write(
        kind === "read-only"
          ? `ragsynth: note: ${message} (--cache-dir picks another place).\n`
          : `ragsynth: ${message}\n`,
      ),
  };
}

/** Every path must exist: a missing one is a mistake on the command line (exit 2), not a runtime failure. */
async function checkPaths(paths: readonly string[], cwd: string): Promise<void> {
  for (const path of paths) {
    try {
      await stat(resolve(cwd, path));
    } catch (error) {
      if ((error as { code?: unknown }).code === "ELOOP") {
        throw new UsageError(
          `${path} is a symbolic link loop: following it leads back to itself.`,
          "Point ragsynth at the real file or folder, or fix the link (ls -l shows where it points).",
        );
      }
      throw new UsageError(`No such file or folder: ${path}.`, `Check the path (relative to ${cwd}).`);
    }
  }
}
