import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";

/** Why a path was refused by {@link resolveInsideRoots}. */
export type OutsideRootsCode = "outside_roots" | "not_a_file" | "missing" | "unreadable" | "symlink_loop";

/** The answer of {@link resolveInsideRoots}. */
export type InsideRootsResult =
  | { ok: true; realPath: string; stats: Stats }
  | { ok: false; code: OutsideRootsCode; reason: string };

// The kernel's virtual file systems: their "regular files" (`/proc/self/environ`, `/sys/…`) report size 0 and hold
// process secrets, so they are refused even when a root given contains them (`ragsynth ask /`).
const SYSTEM_FOLDERS = process.platform === "win32" ? [] : ["/proc", "/sys", "/dev"];

/**
 * The one place that decides whether a file may be read: `candidate` is resolved with `realpath` (every symbolic
 * link followed) and must then lie inside one of `realRoots` (themselves real paths, from {@link realRoots}) and be a
 * regular file. So a symlink that leads out of the documents folder, `/proc/self/environ`, a device, a FIFO or a
 * socket is refused, whatever the name it is reached by. Files under `/proc`, `/sys` and `/dev` are refused always.
 *
 * `walkedRealPath` is the real path a folder walk saw for the file (its folder's real path and the name the folder
 * listed as a regular file). When `lstat` still finds a regular file there (not a link), that path is checked as
 * the resolved one, one system call instead of `realpath`'s call per path component plus a `stat`: at 6,000 files
 * that was a sixth of an unchanged ask. Anything else there (a link now, gone) is resolved in full as above. A folder
 * on the way swapped for a link after the walk is the race `realpath` then `open` has too.
 */
export function resolveInsideRoots(
  candidate: string,
  roots: readonly string[],
  walkedRealPath?: string,
): InsideRootsResult {
  const seen = walkedRealPath === undefined ? undefined : regularFileAt(walkedRealPath);
  if (seen)
    return (
      placeOf(walkedRealPath as string, roots) ?? {
        ok: true,
        realPath: walkedRealPath as string,
        stats: seen,
      }
    );
  let real: string;
  try {
    real = realpathSync.native(candidate);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") {
      return {
        ok: false,
        code: "symlink_loop",
        reason: "symbolic link loop (following it leads back to itself)",
      };
    }
    return code === "ENOENT" || code === "ENOTDIR"
      ? { ok: false, code: "missing", reason: "no such file" }
      : { ok: false, code: "unreadable", reason: `could not be resolved (${code ?? "error"})` };
  }
  const refused = placeOf(real, roots);
  if (refused) return refused;
  let stats: Stats;
  try {
    stats = statSync(real);
  } catch (error) {
    return {
      ok: false,
      code: "unreadable",
      reason: `could not be examined (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    };
  }
  if (!stats.isFile()) {
    return { ok: false, code: "not_a_file", reason: "not a regular file (a device, FIFO, socket or folder)" };
  }
  return { ok: true, realPath: real, stats };
}

/** Why a real path may not be read for where it lies (a system folder, outside the roots), or undefined. */
function placeOf(real: string, roots: readonly string[]): InsideRootsResult | undefined {
  const normal = isNormalAbsolute(real);
  if (SYSTEM_FOLDERS.some((folder) => inside(real, normal, folder))) {
    return { ok: false, code: "not_a_file", reason: `a system file (${real}), never read` };
  }
  if (!roots.some((root) => inside(real, normal, root))) {
    return {
      ok: false,
      code: "outside_roots",
      reason: "leads outside the folders given (a symbolic link out, or ../)",
    };
  }
  return undefined;
}

/** The `lstat` of `real` when it is a regular file (a link is not), else undefined. */
function regularFileAt(real: string): Stats | undefined {
  try {
    const stats = lstatSync(real);
    return stats.isFile() ? stats : undefined;
  } catch {
    return undefined;
  }
}

/** The real paths of the roots the user gave (a file root stands for itself). Missing roots are left out. */
export async function realRoots(paths: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(
    paths.map((root) => realpath(path.resolve(root)).catch(() => undefined)),
  );
  return resolved.filter((root): root is string => root !== undefined);
}

/** A POSIX path `path.relative` would normalize first: a `.` or `..` segment, an empty one, a trailing slash. */
const NOT_NORMAL = /\/\/|(^|\/)\.\.?(\/|$)|.\/$/;

/** True when `real` is `root` or lies below it (both real, absolute paths). */
export function isInside(real: string, root: string): boolean {
  return inside(real, isNormalAbsolute(real), root);
}

/** A normal absolute POSIX path: `path.relative` would change nothing in it. */
function isNormalAbsolute(candidate: string): boolean {
  return path.sep === "/" && candidate.startsWith("/") && !NOT_NORMAL.test(candidate);
}

// The roots' answers of isNormalAbsolute: a walk asks about the same few roots for every file.
const normalRoots = new Map<string, boolean>();

function isNormalRoot(root: string): boolean {
  let normal = normalRoots.get(root);
  if (normal === undefined) {
    normal = isNormalAbsolute(root);
    if (normalRoots.size < 1024) normalRoots.set(root, normal);
  }
  return normal;
}

/** {@link isInside}, told whether `real` is a normal absolute path. */
function inside(real: string, realIsNormal: boolean, root: string): boolean {
  if (real === root) return true;
  // Two normal absolute POSIX paths: inside exactly when `real` starts with `root` and a separator. A prefix test,
  // where `path.relative` resolves both paths: it runs a few times per file read, 6,000 files a walk.
  if (realIsNormal && isNormalRoot(root)) {
    return root === "/" || (real.startsWith(root) && real[root.length] === "/");
  }
  const relative = path.relative(root, real);
  // `..hidden.png` lies inside; only `..` as a whole first segment leads out.
  return (
    relative !== "" &&
    relative !== ".." &&
    !relative.startsWith(`..${path.sep}`) &&
    !path.isAbsolute(relative)
  );
}
