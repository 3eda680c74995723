import { join } from "node:path";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { FolderIndexOptions } from "./folder-read.js";

/**
 * A folder index's options as the tests open one: `paths` read from `dir` (the working folder), the offline
 * embedder, the default walk, the user cache folder inside `dir`; `more` on top.
 */
export function folderIndexOptions(
  dir: string,
  paths: string[],
  more: Partial<FolderIndexOptions> = {},
): FolderIndexOptions {
  return {
    paths,
    walk: { include: [], exclude: [], readAs: {}, noIgnore: false, hidden: false, followSymlinks: false },
    cacheDir: undefined,
    embedModel: new HashingEmbedder(),
    embedLabel: "hashing",
    rebuild: false,
    cwd: dir,
    userCacheDir: join(dir, "user-cache"),
    signal: new AbortController().signal,
    ...more,
  };
}
