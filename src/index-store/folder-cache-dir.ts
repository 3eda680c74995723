import { existsSync } from "node:fs";
import { access, constants, mkdir, stat } from "node:fs/promises";
import { dirname, join, parse, resolve, sep } from "node:path";
import { SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
import { sha256Hex } from "../util/sha256.js";

// Where a folder's index is kept when no cache folder is given.

const CACHE_DIR_NAME = ".ragsynth";

/**
 * The default cache folder: `.ragsynth/` inside the folder given (beside the documents; the reader skips
 * hidden folders), beside the file given, or in the nearest folder that holds all the paths given.
 */
export async function defaultCacheDir(paths: readonly string[], cwd: string): Promise<string> {
  const folders: string[] = [];
  for (const path of paths) {
    const absolute = resolve(cwd, path);
    folders.push((await stat(absolute)).isDirectory() ? absolute : dirname(absolute));
  }
  let common = folders[0] ?? cwd;
  for (const folder of folders.slice(1)) {
    while (common !== parse(common).root && folder !== common && !folder.startsWith(common + sep))
      common = dirname(common);
  }
  return join(common, CACHE_DIR_NAME);
}

/**
 * The default cache folder if it can be written, else one in the user's cache directory (`<userCacheDir>/<hash
 * of the folder>`), with a notice: a read-only documents folder is still answered.
 */
export async function writableCacheDir(
  folder: string,
  {
    userCacheDir,
    onNotice,
  }: {
    userCacheDir: string;
    onNotice?: ((notice: { kind: "read-only"; message: string }) => void) | undefined;
  },
): Promise<string> {
  try {
    await mkdir(folder, { recursive: true });
    await access(folder, constants.W_OK);
    return folder;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== "EACCES" && code !== "EPERM" && code !== "EROFS") return folder;
  }
  const fallback = fallbackCacheDir(folder, userCacheDir);
  onNotice?.({
    kind: "read-only",
    message: `${dirname(folder)} is read-only, so the index is kept in ${fallback}`,
  });
  return fallback;
}

/** Where the index of `folder` goes when `folder` is read-only: `<userCacheDir>/<hash of the folder>`. */
export function fallbackCacheDir(folder: string, userCacheDir: string): string {
  return join(userCacheDir, sha256Hex(folder).slice(0, 16));
}

/**
 * Where an index of `folder` (a default cache folder) was written, found without writing anything: `folder` when it
 * holds one, else its read-only fallback ({@link writableCacheDir}) when that does, else `folder`.
 */
export function writtenCacheDir(folder: string, userCacheDir: string): string {
  if (existsSync(join(folder, SQLITE_INDEX_FILE))) return folder;
  const fallback = fallbackCacheDir(folder, userCacheDir);
  return existsSync(join(fallback, SQLITE_INDEX_FILE)) ? fallback : folder;
}

/**
 * Where this machine keeps what it learned about the files of a shared store (PostgreSQL: `location` as
 * `storeLabel` prints it, without password), named from `from`: `<userCacheDir>/stores/<hash of both>`. The store's
 * rows name files by their path from a folder (the working folder, or the one `namesAsStored` found), so files
 * named from another folder are kept apart.
 */
export function sharedStoreMemoryDir(userCacheDir: string, location: string, from: string): string {
  return join(userCacheDir, "stores", sha256Hex(`${location}\n${from}`).slice(0, 16));
}
