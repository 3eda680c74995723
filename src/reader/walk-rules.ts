import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Ignore, Options as IgnoreOptions } from "ignore";
import type picomatchType from "picomatch";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";

// `ignore` and `picomatch` load on the first walk that needs them, not when ragsynth is imported: as CommonJS
// imported from an ES module, Node parses them twice (its export lexer, then the compile) and they cost the import
// ~25 ms of the ~90 ms it grew by with the format readers. Both ship CommonJS, so `require` loads them in the ES
// build and in the CLI's CommonJS bundle alike (which may hold no `import()`: see scripts/bundle-dist.mjs).
const load = createRequire(import.meta.url);
let ignoreFactory: ((options?: IgnoreOptions) => Ignore) | undefined;
let picomatchFunction: typeof picomatchType | undefined;
function ignore(): Ignore {
  ignoreFactory ??= load("ignore") as (options?: IgnoreOptions) => Ignore;
  return ignoreFactory();
}
function picomatch(...args: Parameters<typeof picomatchType>): ReturnType<typeof picomatchType> {
  picomatchFunction ??= load("picomatch") as typeof picomatchType;
  return picomatchFunction(...args);
}

/**
 * Folders a walk passes over unless told not to (`noIgnore`): version control data, installed dependencies,
 * caches and build output, whose files are not the documents (or are copies of them).
 */
export const DEFAULT_IGNORED_FOLDERS: ReadonlyMap<string, string> = new Map([
  [".git", "Git's own data"],
  [".hg", "Mercurial's own data"],
  [".svn", "Subversion's own data"],
  ["node_modules", "installed npm packages"],
  ["bower_components", "installed Bower packages"],
  [".venv", "a Python virtual environment"],
  ["venv", "a Python virtual environment"],
  ["__pycache__", "Python's bytecode cache"],
  [".tox", "tox's environments"],
  [".mypy_cache", "mypy's cache"],
  [".pytest_cache", "pytest's cache"],
  [".ragsynth", "ragsynth's index cache"],
  ["dist", "build output"],
  ["build", "build output"],
  ["_build", "build output (Sphinx)"],
  ["_sources", "Sphinx's copies of the pages' sources (the HTML pages beside it hold the same text)"],
  ["_static", "Sphinx's theme files (CSS, JavaScript)"],
  ["target", "build output (Cargo, Maven)"],
  [".next", "build output (Next.js)"],
  [".nuxt", "build output (Nuxt)"],
  ["coverage", "test coverage reports"],
]);

// A page's source or data that documentation folders ship beside its HTML rendering: git's `git-add.txt` (AsciiDoc)
// by `git-add.html`, Node's `readline.md` and `readline.json.gz` by `readline.html`. Compressed (`.gz`) or not.
const PAGE_SOURCE_ENDINGS = [".md", ".markdown", ".txt", ".rst", ".adoc", ".asciidoc", ".json"];
const PAGE_ENDINGS = [".html", ".htm"];

/**
 * The HTML page in the same folder (`names`: the folder's entries) that the file `name` is the source or data of
 * (the same name before its ending), or undefined. Read both, every section of the folder came twice or three times,
 * and the copies filled an answer's sources.
 */
export function renderedPageOf(name: string, names: ReadonlySet<string>): string | undefined {
  const bare = name.toLowerCase().endsWith(".gz") ? name.slice(0, -3) : name;
  const lower = bare.toLowerCase();
  const ending = PAGE_SOURCE_ENDINGS.find((candidate) => lower.endsWith(candidate));
  if (ending === undefined || bare.length === ending.length) return undefined;
  const stem = bare.slice(0, -ending.length);
  return PAGE_ENDINGS.map((page) => stem + page).find((page) => names.has(page));
}

/** Files of ignore rules read in every folder walked, in `.gitignore` syntax. `.ragsignore` is for ragsynth only. */
export const IGNORE_FILES = [".gitignore", ".ragsignore"] as const;

/** The ignore rules of one folder (its `.gitignore` and `.ragsignore`). */
export interface IgnoreLevel {
  /** The folder, as the walk reaches it (absolute). */
  folder: string;
  /** For messages: `docs/.gitignore`. */
  label: string;
  matcher: Ignore;
}

/** The rules of `folder`, or undefined when it holds no ignore file. Unreadable ignore files are passed over. */
export async function loadIgnoreLevel(
  folder: string,
  label: string,
  names: ReadonlySet<string> | undefined,
): Promise<IgnoreLevel | undefined> {
  // A matcher only for a folder that holds an ignore file: most hold none.
  let matcher: ReturnType<typeof ignore> | undefined;
  const found: string[] = [];
  for (const name of IGNORE_FILES) {
    if (names && !names.has(name)) continue;
    const text = await readFile(path.join(folder, name), "utf8").catch(() => undefined);
    if (text === undefined) continue;
    matcher ??= ignore();
    matcher.add(text);
    found.push(path.posix.join(label, name));
  }
  return matcher === undefined ? undefined : { folder, label: found.join(" and "), matcher };
}

/**
 * The ignore rules above `root` that git would apply: those of every folder from the repository's top (the nearest
 * ancestor holding `.git`) down to `root`'s parent. None when `root` is not inside a repository.
 */
export async function ancestorIgnoreLevels(root: string): Promise<IgnoreLevel[]> {
  const { folders, inRepository } = foldersAbove(root);
  const levels: IgnoreLevel[] = [];
  for (const folder of inRepository ? folders : []) {
    const level = await loadIgnoreLevel(folder, folder, undefined);
    if (level) levels.push(level);
  }
  return levels;
}

/**
 * The folders {@link ancestorIgnoreLevels} looks in for `.git`, top first: from `root`'s parent up to the
 * repository's top (`inRepository`), or up to the file system's root when none holds `.git`.
 */
export function foldersAbove(root: string): { folders: string[]; inRepository: boolean } {
  const folders: string[] = [];
  for (let folder = path.dirname(root); ; folder = path.dirname(folder)) {
    folders.unshift(folder);
    if (holds(folder, ".git")) return { folders, inRepository: true };
    if (path.dirname(folder) === folder) return { folders, inRepository: false };
  }
}

/** Whether `folder` holds `name` (anything that cannot be examined does not count). */
function holds(folder: string, name: string): boolean {
  try {
    return statSync(path.join(folder, name), { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Which ignore file ignores `absolute` (a normalized absolute path; a folder when `isFolder`), as git decides: the deepest folder whose rules
 * match it wins, and a `!pattern` there takes it back. Undefined when none does.
 */
export function ignoredBy(
  levels: readonly IgnoreLevel[],
  absolute: string,
  isFolder: boolean,
): string | undefined {
  for (let depth = levels.length - 1; depth >= 0; depth--) {
    const level = levels[depth] as IgnoreLevel;
    // A walked path lies below the folder of its rules: the rest of it is the relative path (path.relative resolves
    // both paths, per rule level and walked file).
    const below = absolute.startsWith(level.folder) && absolute[level.folder.length] === path.sep;
    const relative = (below ? absolute.slice(level.folder.length + 1) : path.relative(level.folder, absolute))
      .split(path.sep)
      .join("/");
    if (relative === "" || relative.startsWith("..")) continue;
    const result = level.matcher.test(isFolder ? `${relative}/` : relative);
    if (result.unignored) return undefined;
    if (result.ignored) return level.label;
  }
  return undefined;
}

/** A glob test from `--include`/`--exclude` patterns. */
export type GlobTest = (relativePath: string) => boolean;

/**
 * Glob patterns (picomatch syntax, `**` included) as one test of a path relative to the folder given. A pattern
 * without a slash matches a name at any depth (`*.log`, `drafts`), as in `.gitignore`.
 * @throws InvalidArgumentError when a pattern is not a non-empty string
 */
export function globTest(parameter: string, patterns: readonly string[] | undefined): GlobTest | undefined {
  if (patterns === undefined) return undefined;
  if (
    !Array.isArray(patterns) ||
    patterns.some((pattern) => typeof pattern !== "string" || pattern.trim() === "")
  ) {
    throw new InvalidArgumentError({
      parameter,
      value: patterns,
      expected: 'be an array of glob patterns such as ["**/*.md", "drafts/**"]',
    });
  }
  if (patterns.length === 0) return undefined;
  const withSlash = patterns
    .filter((pattern) => pattern.includes("/"))
    .map((pattern) => pattern.replace(/^\.\//, ""));
  const names = patterns.filter((pattern) => !pattern.includes("/"));
  const tests = [
    ...(withSlash.length > 0 ? [picomatch(withSlash, { dot: true })] : []),
    ...(names.length > 0 ? [picomatch(names, { dot: true, basename: true })] : []),
  ];
  return (relativePath) => tests.some((test) => test(relativePath));
}
