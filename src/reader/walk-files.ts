import { type Dirent, readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { eventLoopTurns } from "../util/event-loop-turns.js";
import { isInside } from "./inside-roots.js";
import type { SkipCode, SkippedPath } from "./skipped-path.js";
import {
  ancestorIgnoreLevels,
  DEFAULT_IGNORED_FOLDERS,
  type GlobTest,
  type IgnoreLevel,
  ignoredBy,
  loadIgnoreLevel,
  renderedPageOf,
} from "./walk-rules.js";

/** How {@link walkFiles} walks. */
export interface WalkOptions {
  recursive: boolean;
  /** Enter hidden folders and take hidden files (names starting with a dot). */
  hidden: boolean;
  /** Pass over `.gitignore`/`.ragsignore` rules and the default ignored folders. */
  noIgnore: boolean;
  /** Follow symbolic links that lead outside the paths given. */
  followSymlinks: boolean;
  include: GlobTest | undefined;
  exclude: GlobTest | undefined;
  /** Lower-case endings with their dot; undefined takes every ending. */
  extensions: readonly string[] | undefined;
  signal: AbortSignal | undefined;
}

/** A path the user gave. */
export interface WalkRoot {
  absolute: string;
  displayPath: string;
  stats: Stats;
}

/** A file the walk found, to be read. */
export interface WalkedFile {
  /** The path as walked (through links, not resolved). */
  absolute: string;
  displayPath: string;
  /**
   * The real path the walk saw, for an entry its folder listed as a regular file (not a link): the folder's real
   * path joined with the name. The read checks it with one `lstat` instead of resolving the path again.
   */
  realPath?: string;
  /** For an entry that is a symbolic link to a file: the real path it led to. */
  linkTarget?: string;
}

/** A symbolic link the walk met among a folder's entries, and the real path it led to then (null: none). */
export interface WalkedLink {
  absolute: string;
  real: string | null;
}

/** What {@link walkFiles} found. */
export interface WalkResult {
  files: WalkedFile[];
  skipped: SkippedPath[];
  /**
   * Real paths files may be read from: the roots, and the targets of links followed with `followSymlinks`.
   * Every file is checked against them again when it is read (`resolveInsideRoots`).
   */
  allowedRoots: string[];
  /** The real paths of the folders walked (each listed once), in the order they were listed. */
  folders: string[];
  /** Symbolic links met among the folders' entries (followed or not). */
  links: WalkedLink[];
}

/**
 * Walks the paths given: folders recursively, in name order, passing over (and recording why) what the rules leave
 * out; a path named explicitly is taken whatever its name. Symbolic links are resolved: one leading outside the paths
 * given is recorded `outside_roots` unless `followSymlinks`; one leading back to a folder it lies in, `symlink_loop`.
 */
export async function walkFiles(roots: readonly WalkRoot[], options: WalkOptions): Promise<WalkResult> {
  const files: WalkedFile[] = [];
  const skipped: SkippedPath[] = [];
  const allowedRoots: string[] = [];
  const folders: string[] = [];
  const links: WalkedLink[] = [];
  const realRootPaths = new Map<WalkRoot, string>();
  for (const root of roots) {
    const real = await realpath(root.absolute).catch(() => undefined);
    if (real === undefined) continue;
    realRootPaths.set(root, real);
    allowedRoots.push(real);
  }
  const visited = new Set<string>();
  const skip = (display: string, code: SkipCode, reason: string) =>
    skipped.push({ path: display, code, reason });
  // Folders are listed synchronously: awaited one after another, each listing waited a turn of the thread pool, and
  // a tree of 1,073 folders (Debian's /usr/share/doc) spent 100–140 ms of its walk idle, more than the listings
  // took. The walk gives the event loop a turn every TURN_MS, so Ctrl-C (an abort) is still seen within it.
  const turns = eventLoopTurns(TURN_MS, options.signal);

  const walk = async (
    folder: string,
    realFolder: string,
    display: string,
    relativeBase: string,
    levels: readonly IgnoreLevel[],
    ancestors: ReadonlySet<string>,
  ): Promise<void> => {
    if (turns.due()) await turns.take();
    options.signal?.throwIfAborted();
    visited.add(realFolder);
    folders.push(realFolder);
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      skip(display, "unreadable", `folder could not be read (${errorCode(error)})`);
      return;
    }
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    const names = new Set(entries.map((entry) => entry.name));
    const own = options.noIgnore ? undefined : await loadIgnoreLevel(folder, display, names);
    const rules = own ? [...levels, own] : levels;
    const inner = new Set([...ancestors, realFolder]);
    // An entry's paths are its folder's joined with its name: the folder's part normalized once here, not per entry
    // (a listed name never holds a separator, `.` or `..`), as `path.join` would give them.
    const absoluteBase = childBase(folder, path.join);
    const displayBase = childBase(display, path.posix.join);
    const realBase = childBase(realFolder, path.join);

    // Whether the walk reads the page `name` of this folder: a regular file no rule leaves out.
    const readsPage = (name: string): boolean =>
      entries.some((entry) => entry.name === name && entry.isFile()) &&
      leftOutBy(
        name,
        relativeBase === "" ? name : `${relativeBase}/${name}`,
        displayBase + name,
        absoluteBase + name,
        false,
        rules,
        options,
      ) === undefined;

    for (const entry of entries) {
      const absolute = absoluteBase + entry.name;
      const entryDisplay = displayBase + entry.name;
      const relative = relativeBase === "" ? entry.name : `${relativeBase}/${entry.name}`;
      const leave = (code: SkipCode, reason: string) => skip(entryDisplay, code, reason);

      const target = entry.isSymbolicLink() ? resolveLink(absolute) : undefined;
      if (target) links.push({ absolute, real: "real" in target ? target.real : null });
      if (target && "code" in target) {
        leave(target.code, target.reason);
        continue;
      }
      const isFolder = target ? target.stats.isDirectory() : entry.isDirectory();
      const isFile = target ? target.stats.isFile() : entry.isFile();
      const ruled = leftOutBy(entry.name, relative, entryDisplay, absolute, isFolder, rules, options);
      if (ruled) {
        leave("ignored", ruled);
        continue;
      }
      const page = isFile && !options.noIgnore ? renderedPageOf(entry.name, names) : undefined;
      if (page !== undefined && readsPage(page)) {
        leave("ignored", `the source or data of ${page} beside it, which is read (--no-ignore reads both)`);
        continue;
      }
      const real = target?.real ?? realBase + entry.name;
      if (target && !allowedRoots.some((root) => isInside(real, root))) {
        if (!options.followSymlinks) {
          leave(
            "outside_roots",
            "symbolic link leading outside the folders given (not followed; --follow-symlinks to follow it)",
          );
          continue;
        }
        if (!target.stats.isFile() && !target.stats.isDirectory()) {
          leave("not_a_file", "not a regular file (a device, FIFO or socket)");
          continue;
        }
        allowedRoots.push(real);
      }
      if (isFolder) {
        if (inner.has(real))
          leave("symlink_loop", "symbolic link to a folder that holds it (a loop; not followed)");
        else if (visited.has(real))
          leave("duplicate", "the same folder as one already read (reached by a link)");
        else if (!options.recursive) leave("not_recursive", "subfolder (recursive is false)");
        else await walk(absolute, real, entryDisplay, relative, rules, inner);
      } else if (isFile) {
        files.push(
          target
            ? { absolute, displayPath: entryDisplay, linkTarget: real }
            : { absolute, displayPath: entryDisplay, realPath: real },
        );
      } else {
        leave("not_a_file", "not a regular file (a device, FIFO or socket)");
      }
    }
  };

  for (const root of roots) {
    const real = realRootPaths.get(root);
    if (real === undefined) {
      skip(root.displayPath, "unreadable", "could not be resolved");
    } else if (root.stats.isDirectory() && visited.has(real)) {
      // A folder given twice, or inside another folder given: walked once (its entries are already counted).
    } else if (root.stats.isDirectory()) {
      // The rules above a folder given apply inside it, unless they ignore the folder itself: a folder the user
      // names is read even when a .gitignore above it ignores it (a build or corpus folder); its own ignore files
      // still apply.
      let levels = options.noIgnore ? [] : await ancestorIgnoreLevels(real);
      if (ignoredBy(levels, real, true) !== undefined) levels = [];
      await walk(real, real, root.displayPath, "", levels, new Set());
    } else if (root.stats.isFile()) {
      files.push({ absolute: root.absolute, displayPath: root.displayPath });
    } else {
      skip(root.displayPath, "not_a_file", "not a regular file (a device, FIFO or socket)");
    }
  }
  return { files, skipped, allowedRoots, folders, links };
}

/** The longest the walk, or the examining of the files it found, keeps the event loop before giving it a turn. */
export const TURN_MS = 25;

/** What `join(folder, name)` puts before `name`, for any name a folder listing holds. */
function childBase(folder: string, join: (...parts: string[]) => string): string {
  return join(folder, "x").slice(0, -1);
}

/** Why the walk's rules leave an entry out (a sentence), or undefined when they take it. */
function leftOutBy(
  name: string,
  relative: string,
  display: string,
  absolute: string,
  isFolder: boolean,
  levels: readonly IgnoreLevel[],
  options: WalkOptions,
): string | undefined {
  const folderRule = isFolder && !options.noIgnore ? DEFAULT_IGNORED_FOLDERS.get(name) : undefined;
  if (folderRule) return `${name}/ holds ${folderRule}, passed over by default (--no-ignore reads it)`;
  if (name.startsWith(".") && !options.hidden) {
    return "hidden (name starts with a dot); --hidden, or naming it, reads it";
  }
  const ignoreFile = options.noIgnore ? undefined : ignoredBy(levels, absolute, isFolder);
  if (ignoreFile) return `ignored by ${ignoreFile} (--no-ignore reads it)`;
  if (options.exclude && (options.exclude(relative) || options.exclude(display))) return "matches --exclude";
  if (isFolder) return undefined;
  if (options.include && !options.include(relative) && !options.include(display)) {
    return "does not match --include";
  }
  const lower = name.toLowerCase();
  if (options.extensions && !options.extensions.some((ending) => lower.endsWith(ending))) {
    return `file ending not in extensions (${options.extensions.join(", ")})`;
  }
  return undefined;
}

type LinkTarget = { real: string; stats: Stats } | { code: SkipCode; reason: string };

/** Where a symbolic link leads (synchronous, as the folder listings: see {@link walkFiles}). */
function resolveLink(absolute: string): LinkTarget {
  try {
    const real = realpathSync.native(absolute);
    return { real, stats: statSync(real) };
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP")
      return { code: "symlink_loop", reason: "symbolic link loop (it leads back to itself)" };
    if (code === "ENOENT")
      return { code: "unreadable", reason: "broken symbolic link (its target does not exist)" };
    return { code: "unreadable", reason: `symbolic link could not be followed (${code})` };
  }
}

function errorCode(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : String(error);
}
