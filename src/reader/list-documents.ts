import { stat } from "node:fs/promises";
import path from "node:path";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import type { TextNode } from "../schema/text-node.js";
import { eventLoopTurns } from "../util/event-loop-turns.js";
import { createReaderRegistry, normalizeEnding, type ReaderOverrides } from "./formats/registry.js";
import { DEFAULT_READER_LIMITS } from "./formats/types.js";
import {
  type ExaminedFile,
  examineWalkedFile,
  type FileOutcome,
  type ParseElsewhere,
  type ReadFileContext,
  readExaminedFile,
  readExaminedFileUnlessBytes,
  type SkipRead,
} from "./read-file.js";
import type { SkippedPath } from "./skipped-path.js";
import { TURN_MS, type WalkedFile, type WalkedLink, type WalkRoot, walkFiles } from "./walk-files.js";
import { globTest } from "./walk-rules.js";

/** Options of {@link listDocuments} and `readDocuments`. */
export interface ReadDocumentsOptions {
  /**
   * Readers to add or replace by file ending, as LlamaIndex's `file_extractor`: `{ ".log": logReader }` (a
   * {@link DocumentReader}: `format`, `extensions`, `read({ bytes, path, limits })`). A file whose ending has no
   * reader is read as plain text when it is text, and skipped as `binary` otherwise.
   * @default the built-in readers (`BUILT_IN_READERS`)
   */
  readers?: ReaderOverrides | undefined;
  /**
   * Only files with these endings are read from folders (case-insensitive; the rest are recorded `ignored`).
   * Files named explicitly are read whatever their ending. Image endings (`.png`…) listed here are read as image
   * documents. @default every ending
   */
  extensions?: readonly string[] | undefined;
  /** Glob patterns (picomatch: `**\/*.md`, `guide/**`) a file below a folder given must match to be read. A pattern without `/` matches a name at any depth. @default every file */
  include?: readonly string[] | undefined;
  /** Glob patterns of files and folders below a folder given to pass over (recorded `ignored`). @default none */
  exclude?: readonly string[] | undefined;
  /**
   * Pass over nothing by rule: `.gitignore` and `.ragsignore` files (read in every folder and from the
   * repository's top down, as git does) and the default ignored folders (`.git`, `node_modules`, `dist`, `build`…,
   * `DEFAULT_IGNORED_FOLDERS`) are then not applied. @default false
   */
  noIgnore?: boolean | undefined;
  /** Read hidden files and folders (names starting with a dot) below the folders given. @default false */
  hidden?: boolean | undefined;
  /**
   * Follow symbolic links that lead outside the paths given. Off, such a link (to a file or a folder) is recorded
   * `outside_roots` and nothing behind it is read. Files under `/proc`, `/sys`, `/dev`, FIFOs, sockets and devices
   * are never read. @default false
   */
  followSymlinks?: boolean | undefined;
  /** Walk subfolders. @default true */
  recursive?: boolean | undefined;
  /** Larger files are skipped (and reported) without being read. @default 33554432 (32 MiB) */
  maxFileBytes?: number | undefined;
  /**
   * Files to list without reading: called with the file's `file_path`, size, modification time (ISO) and the id
   * of the reader that would read it (`markdown@1`); when it returns true, the file's document carries its metadata
   * but an empty `text`. For a caller that already holds the content, such as an index that knows the file by its
   * size, modification time and reader (compare all three: another reader makes another text). When it returns a
   * skip (`{ code: "binary", reason }`: what reading the same file with the same reader gave before), the file is
   * reported skipped with it, unread.
   * @default every file is read
   */
  skipRead?: SkipRead | undefined;
  /**
   * The name each path given is listed under, by the path as given in `paths`: its files' ids and `file_path`
   * then start with this name (`docs/guide.md`) instead of the path as typed (`./guide.md`), and display globs
   * (`include`, `exclude`) see those names. For a caller that names files as an index first saw them, whichever
   * working folder it runs from. @default each path as given, normalised (forward slashes, no trailing slash)
   */
  rootNames?: Readonly<Record<string, string>> | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * What {@link listDocuments} found: every file to read, listed by its metadata, and a way to read each when it is
 * needed, so a caller that handles documents a few at a time (an index built in groups) holds only those.
 */
export interface DocumentListing {
  /**
   * One document per file, sorted by `file_path`, with the file's metadata (`file_size`, `last_modified_at`,
   * `format`, `reader`…). A file still to read has an empty `text` until {@link DocumentListing.read}; an image, or a
   * file `skipRead` passed over, is whole already.
   */
  documents: TextNode[];
  /**
   * What was passed over and read so far: `skipped` sorted by path (the walk's entries, then each read that was
   * skipped), and documents by format (`{ markdown: 12, text: 3 }`: those listed whole, and each read that succeeded).
   */
  report(): { skipped: SkippedPath[]; formats: Record<string, number> };
  /**
   * Reads a listed document: a new document with its text and blocks (the listed one is left as it was, so
   * holding the listing does not hold the text), or `undefined` when the file was skipped (binary, corrupt, empty,
   * vanished…; recorded in `skipped`). A document listed whole is returned as it is; one read before is read again
   * (and counted once).
   */
  read(document: TextNode, options?: ReadListedOptions): Promise<TextNode | undefined>;
  /**
   * As {@link DocumentListing.read} with `evenIfKnown`, unless the file's bytes hash to `bytesHash` (SHA-256, hex,
   * as `getDocumentBytesHash` gives it for a document read before): then `"same-bytes"`, and nothing is parsed. For
   * a caller that holds what those bytes make, such as an index that finds a file with a new time (touched, copied,
   * checked out again) whose bytes it holds.
   */
  readUnlessBytes(
    document: TextNode,
    bytesHash: string,
    options?: Pick<ReadListedOptions, "parseElsewhere">,
  ): Promise<TextNode | undefined | "same-bytes">;
  /** Why {@link DocumentListing.read} returned `undefined` for this document, once it has. */
  whySkipped(document: TextNode): SkippedPath | undefined;
  /**
   * What the walk looked at: the real paths of the folders it listed, the symbolic links among their entries (with
   * the real paths they led to), and every file it found (examined in turn: each is a document or in `skipped`). For a caller that checks later, by
   * their modification times, whether listing again would find the same (an index's freshness check).
   */
  walked: { folders: readonly string[]; links: readonly WalkedLink[]; files: readonly WalkedFile[] };
}

/** Options of {@link DocumentListing.read}. */
export interface ReadListedOptions {
  /**
   * Read a document `skipRead` listed without its text too, rather than return it as listed: for a caller whose
   * copy of the text went away since the listing (an index another process rebuilt meanwhile). @default false
   */
  evenIfKnown?: boolean | undefined;
  /** Where to parse the file's bytes instead of in this thread, when it can be (an index build's worker threads). */
  parseElsewhere?: ParseElsewhere | undefined;
}

/**
 * The first half of `readDocuments`, which reads no file's content: walks the paths, examines each file (inside
 * the roots, its size, its reader, each real file once) and lists it by its metadata; `read` reads one when it is
 * needed. Everything walked is either listed or in `skipped`, and every read that fails is added there.
 * @throws RagsynthError with code `document_read` when a path does not exist or cannot be examined;
 *   InvalidArgumentError for malformed options.
 */
export async function listDocuments(
  paths: readonly string[],
  {
    readers,
    extensions,
    include,
    exclude,
    noIgnore = false,
    hidden = false,
    followSymlinks = false,
    recursive = true,
    maxFileBytes = DEFAULT_READER_LIMITS.maxFileBytes,
    skipRead,
    rootNames,
    signal,
  }: ReadDocumentsOptions = {},
): Promise<DocumentListing> {
  validate(paths, extensions, maxFileBytes, rootNames);
  const registry = createReaderRegistry({ readers });
  const endings = extensions?.map(normalizeEnding);
  const roots = await statRoots(paths, rootNames, signal);
  const walked = await walkFiles(roots, {
    recursive,
    hidden,
    noIgnore,
    followSymlinks,
    include: globTest("include", include),
    exclude: globTest("exclude", exclude),
    extensions: endings,
    signal,
  });
  const skipped = [...walked.skipped];
  // Images are read when asked for by ending, or when named explicitly.
  const explicit = new Set(roots.filter((root) => root.stats.isFile()).map((root) => root.displayPath));
  const wantedImages = new Set((endings ?? []).map((ending) => ending.slice(1)));
  // One context for every file walked; a file named explicitly is also read as an image by its own ending.
  const walkedContext: ReadFileContext = {
    registry,
    limits: { ...DEFAULT_READER_LIMITS, maxFileBytes },
    allowedRoots: walked.allowedRoots,
    imageEndings: wantedImages,
    skipRead,
    signal,
  };
  const context = (file: { displayPath: string }): ReadFileContext =>
    explicit.size > 0 && explicit.has(file.displayPath)
      ? {
          ...walkedContext,
          imageEndings: new Set([...wantedImages, path.extname(file.displayPath).slice(1).toLowerCase()]),
        }
      : walkedContext;
  // Examining reads no content, only each file's lstat (synchronous: at 6,000 files a promise per file cost more
  // than the system calls), so the files are examined in turn, with a turn for the event loop every TURN_MS: Ctrl-C
  // is seen while a tree such as /usr (98,000 files) is examined.
  signal?.throwIfAborted();
  const turns = eventLoopTurns(TURN_MS, signal);
  const results: ReturnType<typeof examineWalkedFile>[] = [];
  for (const file of walked.files) {
    if (turns.due()) await turns.take();
    results.push(examineWalkedFile(file.absolute, file.displayPath, context(file), file.realPath));
  }
  const documents: TextNode[] = [];
  const formats: Record<string, number> = {};
  const unread = new Map<TextNode, ExaminedFile>();
  // Documents `skipRead` listed without their text (already counted in `formats`): read only when asked to.
  const known = new Map<TextNode, ExaminedFile>();
  const reported = new Set<TextNode>();
  const whySkipped = new Map<TextNode, SkippedPath>();
  const seen = new Map<string, string>();
  for (const [position, result] of results.entries()) {
    const first = result.realPath === undefined ? undefined : seen.get(result.realPath);
    if (first !== undefined) {
      const display = walked.files[position]?.displayPath ?? "";
      if (display !== first)
        skipped.push({ path: display, code: "duplicate", reason: `the same file as ${first}` });
      continue;
    }
    if (result.realPath !== undefined) seen.set(result.realPath, walked.files[position]?.displayPath ?? "");
    if ("skipped" in result) {
      skipped.push(result.skipped);
    } else if ("examined" in result) {
      documents.push(result.examined.stub);
      unread.set(result.examined.stub, result.examined);
    } else {
      documents.push(result.document);
      formats[result.format] = (formats[result.format] ?? 0) + 1;
      if (result.unread) {
        known.set(result.document, result.unread);
        reported.add(result.document);
      }
    }
  }
  documents.sort((left, right) => compare(left.id, right.id));
  /** Reads a listed document with `read`, counting it once (a file with the bytes asked for counts as read). */
  const readListed = async <Same extends "same-bytes" = never>(
    document: TextNode,
    evenIfKnown: boolean,
    read: (examined: ExaminedFile) => Promise<FileOutcome | Same>,
  ): Promise<TextNode | undefined | Same> => {
    const examined = unread.get(document) ?? (evenIfKnown ? known.get(document) : undefined);
    if (!examined) return document;
    const outcome = await read(examined);
    // Read again (a caller that needs the text twice), it is counted once.
    const first = !reported.has(document);
    reported.add(document);
    if (outcome === "same-bytes") {
      if (first) formats[examined.chosen.reader.format] = (formats[examined.chosen.reader.format] ?? 0) + 1;
      return outcome;
    }
    if ("skipped" in outcome) {
      if (first) skipped.push(outcome.skipped);
      whySkipped.set(document, outcome.skipped);
      return undefined;
    }
    if (first) formats[outcome.format] = (formats[outcome.format] ?? 0) + 1;
    return outcome.document;
  };
  return {
    documents,
    report: () => ({
      skipped: [...skipped].sort((left, right) => compare(left.path, right.path)),
      formats: Object.fromEntries(Object.entries(formats).sort(([left], [right]) => compare(left, right))),
    }),
    read: (document, { evenIfKnown = false, parseElsewhere } = {}) =>
      readListed<never>(document, evenIfKnown, (examined) =>
        readExaminedFile(examined, { ...context(examined), parseElsewhere }),
      ),
    readUnlessBytes: (document, bytesHash, { parseElsewhere } = {}) =>
      readListed<"same-bytes">(document, true, (examined) =>
        readExaminedFileUnlessBytes(examined, { ...context(examined), parseElsewhere }, bytesHash),
      ),
    whySkipped: (document) => whySkipped.get(document),
    walked: { folders: walked.folders, links: walked.links, files: walked.files },
  };
}

async function statRoots(
  paths: readonly string[],
  rootNames: ReadDocumentsOptions["rootNames"],
  signal: AbortSignal | undefined,
): Promise<WalkRoot[]> {
  const roots: WalkRoot[] = [];
  const missing: string[] = [];
  for (const given of paths) {
    signal?.throwIfAborted();
    const absolute = path.resolve(given);
    const displayPath = toDisplayPath(
      rootNames !== undefined && Object.hasOwn(rootNames, given) ? (rootNames[given] as string) : given,
    );
    try {
      roots.push({ absolute, displayPath, stats: await stat(absolute) });
    } catch (error) {
      if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") {
        throw new RagsynthError({
          code: "document_read",
          message:
            errorCode(error) === "ELOOP"
              ? `"${given}" is a symbolic link loop: following it leads back to itself. Point at the real file or folder, or fix the link.`
              : `Could not examine "${given}" (${errorCode(error)}). Check its permissions.`,
          cause: error,
        });
      }
      missing.push(`"${given}" (resolved to ${absolute})`);
    }
  }
  if (missing.length > 0) {
    throw new RagsynthError({
      code: "document_read",
      message: `No file or folder at ${missing.join(", ")}. Check the path${missing.length > 1 ? "s" : ""} and the current directory (${process.cwd()}).`,
    });
  }
  return roots;
}

/** The path as the user wrote it, normalised, with forward slashes so ids match across platforms. */
function toDisplayPath(given: string): string {
  const normalized = path.normalize(given).split(path.sep).join("/");
  return normalized.length > 1 && normalized.endsWith("/") ? normalized.slice(0, -1) : normalized;
}

function validate(
  paths: readonly string[],
  extensions: readonly string[] | undefined,
  maxFileBytes: number,
  rootNames: ReadDocumentsOptions["rootNames"],
): void {
  if (!Array.isArray(paths) || paths.some((given) => typeof given !== "string" || given === "")) {
    throw new InvalidArgumentError({
      parameter: "paths",
      value: paths,
      expected: "be an array of non-empty path strings",
    });
  }
  if (
    extensions !== undefined &&
    (!Array.isArray(extensions) || extensions.some((ending) => typeof ending !== "string" || ending === ""))
  ) {
    throw new InvalidArgumentError({
      parameter: "extensions",
      value: extensions,
      expected: 'be an array of file endings such as [".md", ".txt"]',
    });
  }
  if (
    rootNames !== undefined &&
    (typeof rootNames !== "object" ||
      rootNames === null ||
      Array.isArray(rootNames) ||
      Object.values(rootNames).some((name) => typeof name !== "string" || name === ""))
  ) {
    throw new InvalidArgumentError({
      parameter: "rootNames",
      value: rootNames,
      expected:
        'be an object from a path given to the non-empty name its files are listed under, such as { "/home/me/docs": "docs" }',
    });
  }
  if (!(maxFileBytes >= 0)) {
    throw new InvalidArgumentError({
      parameter: "maxFileBytes",
      value: maxFileBytes,
      expected: "be a non-negative number",
    });
  }
}

function errorCode(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : String(error);
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
