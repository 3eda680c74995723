import { realpathSync, type Stats, statSync } from "node:fs";
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
 */
export async function resolveInsideRoots(
  candidate: string,
  roots: readonly string[],
): Promise<InsideRootsResult> {
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
  if (SYSTEM_FOLDERS.some((folder) => isInside(real, folder))) {
    return { ok: false, code: "not_a_file", reason: `a system file (${real}), never read` };
  }
  if (!roots.some((root) => isInside(real, root))) {
    return {
      ok: false,
      code: "outside_roots",
      reason: "leads outside the folders given (a symbolic link out, or ../)",
    };
  }
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

/** The real paths of the roots the user gave (a file root stands for itself). Missing roots are left out. */
export async function realRoots(paths: readonly string[]): Promise<string[]> {
  const resolved = await Promise.all(
    paths.map((root) => realpath(path.resolve(root)).catch(() => undefined)),
  );
  return resolved.filter((root): root is string => root !== undefined);
}

/** True when `real` is `root` or lies below it (both real, absolute paths). */
export function isInside(real: string, root: string): boolean {
  if (real === root) return true;
  const relative = path.relative(root, real);
  // `..hidden.png` lies inside; only `..` as a whole first segment leads out.
  return (
    relative !== "" &&
    relative !== ".." &&
    !relative.startsWith(`..${path.sep}`) &&
    !path.isAbsolute(relative)
  );
}
