import type { Dirent, Stats } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { IMAGE_EXTENSIONS, ImageNode } from "../schema/image-node.js";
import { TextNode } from "../schema/text-node.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import { setDocumentBlocks } from "./document-blocks.js";
import { markdownReader } from "./formats/markdown.js";
import { DEFAULT_READER_LIMITS, ReaderSkipError } from "./formats/types.js";

// Files read (and entries examined) at once: the reads overlap in libuv's thread pool instead of waiting in turn.
const READ_CONCURRENCY = 8;

/** Options of {@link readDocuments}. */
export interface ReadDocumentsOptions {
  /** File endings to read when walking a folder (case-insensitive). Files named explicitly are read whatever their ending. @default [".txt", ".md"] */
  extensions?: readonly string[];
  /** Walk subfolders. @default true */
  recursive?: boolean;
  /** Larger files are skipped (and reported). @default 33554432 (32 MiB) */
  maxFileBytes?: number;
  /**
   * Text files to list without reading: called with the file's `file_path`, size and modification time (ISO);
   * when it returns true, the file's document carries its metadata but an empty `text`. For a caller that
   * already holds the content, such as an index that knows the file by its size and modification time.
   * @default every file is read
   */
  skipRead?: ((file: { path: string; size: number; lastModifiedAt: string }) => boolean) | undefined;
  signal?: AbortSignal;
}

/** Why a file or folder was not read. */
export type SkipCode =
  | "extension"
  | "hidden"
  | "node_modules"
  | "not_recursive"
  | "symlink_folder"
  | "not_a_file"
  | "too_large"
  | "unreadable"
  | "binary"
  | "invalid_utf8"
  | "empty";

/** A file or folder that was not read, and why. */
export interface SkippedPath {
  /** The path, in the same form as documents' `file_path`. */
  path: string;
  code: SkipCode;
  /** A sentence for people: `binary file (contains NUL bytes)`. */
  reason: string;
}

/** What {@link readDocuments} found. */
export interface ReadDocumentsResult {
  /** One document per file, sorted by `file_path`. Empty when nothing matched: report that to the user. */
  documents: TextNode[];
  /** Everything passed over, sorted by path. Nothing is dropped without an entry here. */
  skipped: SkippedPath[];
}

/** Metadata keys hidden from the LLM and the embedder, as LlamaIndex's SimpleDirectoryReader hides them. */
const HIDDEN_KEYS = ["file_name", "file_size", "last_modified_at"];

/**
 * Reads text and image files and folders into documents: `TextNode`s whose id is their `file_path`, with
 * metadata `file_path`, `file_name`, `file_size` and `last_modified_at` (only `file_path` is shown
 * to the LLM and embedder). Text is decoded as UTF-8 (a BOM is dropped) and `\r\n` becomes `\n`.
 *
 * Folder walks skip hidden entries (`.git`, `.env`), `node_modules`, other file endings, and
 * symbolic links to folders; each is reported once in `skipped` (a skipped folder is not entered).
 * Paths named explicitly are always read, hidden or not. Binary files (NUL bytes), invalid UTF-8,
 * unreadable, empty and oversized files are reported in `skipped` as well.
 *
 * Image files (`.png`, `.jpg`, … when their endings are in `extensions`, or named explicitly) become
 * `ImageNode`s captioned with their file name; their pixels are read only when a model is sent them.
 *
 * @throws RagsynthError with code `document_read` when a path does not exist or cannot be examined.
 * @example
 * const { documents, skipped } = await readDocuments(["docs"], { extensions: [".md"] });
 */
export async function readDocuments(
  paths: readonly string[],
  {
    extensions = [".txt", ".md"],
    recursive = true,
    maxFileBytes = 32 * 1024 * 1024,
    skipRead,
    signal,
  }: ReadDocumentsOptions = {},
): Promise<ReadDocumentsResult> {
  validate(paths, extensions, maxFileBytes);
  const endings = extensions.map((ending) => (ending.startsWith(".") ? ending : `.${ending}`).toLowerCase());
  const roots = await statRoots(paths, signal);
  const files = new Map<string, { displayPath: string; stats: Stats }>();
  const skipped: SkippedPath[] = [];

  const walk = async (directory: string, displayPath: string): Promise<void> => {
    signal?.throwIfAborted();
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch (error) {
      skipped.push({
        path: displayPath,
        code: "unreadable",
        reason: `folder could not be read (${errorCode(error)})`,
      });
      return;
    }
    const examined = await mapConcurrent(
      entries,
      READ_CONCURRENCY * 2,
      signal ?? new AbortController().signal,
      async (entry) =>
        entry.name.startsWith(".") || entry.name === "node_modules"
          ? undefined
          : stat(path.join(directory, entry.name)).catch((error: unknown) => error as Error),
    );
    for (const [position, entry] of entries.entries()) {
      const absolute = path.join(directory, entry.name);
      const display = path.posix.join(displayPath, entry.name);
      const skip = (code: SkipCode, reason: string) => skipped.push({ path: display, code, reason });
      if (entry.name.startsWith(".")) {
        skip("hidden", "hidden (name starts with a dot); name it explicitly to read it");
        continue;
      }
      if (entry.name === "node_modules") {
        skip("node_modules", "node_modules folder; name it explicitly to read it");
        continue;
      }
      const stats = examined[position];
      if (!stats || stats instanceof Error) {
        skip("unreadable", `could not be examined (${errorCode(stats)}), e.g. a broken symbolic link`);
        continue;
      }
      if (stats.isDirectory()) {
        if (entry.isSymbolicLink()) skip("symlink_folder", "symbolic link to a folder (not followed)");
        else if (!recursive) skip("not_recursive", "subfolder (recursive is false)");
        else await walk(absolute, display);
      } else if (!stats.isFile()) {
        skip("not_a_file", "not a regular file");
      } else if (!endings.some((ending) => entry.name.toLowerCase().endsWith(ending))) {
        skip("extension", `file ending not in ${endings.join(", ")}`);
      } else if (!files.has(absolute)) {
        files.set(absolute, { displayPath: display, stats });
      }
    }
  };

  for (const root of roots) {
    if (root.stats.isDirectory()) await walk(root.absolute, root.displayPath);
    else if (!root.stats.isFile())
      skipped.push({ path: root.displayPath, code: "not_a_file", reason: "not a regular file" });
    else if (!files.has(root.absolute))
      files.set(root.absolute, { displayPath: root.displayPath, stats: root.stats });
  }

  const documents: TextNode[] = [];
  const results = await mapConcurrent(
    [...files],
    READ_CONCURRENCY,
    signal ?? new AbortController().signal,
    ([absolute, { displayPath, stats }]) =>
      readOne(absolute, displayPath, stats, { maxFileBytes, skipRead, signal }),
  );
  for (const result of results) {
    if ("code" in result) skipped.push(result);
    else documents.push(result);
  }
  documents.sort((left, right) => compare(left.id, right.id));
  skipped.sort((left, right) => compare(left.path, right.path));
  return { documents, skipped };
}

async function readOne(
  absolute: string,
  displayPath: string,
  stats: Stats,
  {
    maxFileBytes,
    skipRead,
    signal,
  }: {
    maxFileBytes: number;
    skipRead: ReadDocumentsOptions["skipRead"];
    signal: AbortSignal | undefined;
  },
): Promise<TextNode | SkippedPath> {
  const skip = (code: SkipCode, reason: string): SkippedPath => ({ path: displayPath, code, reason });
  if (stats.size > maxFileBytes) {
    return skip(
      "too_large",
      `${stats.size} bytes is over maxFileBytes (${maxFileBytes}); raise maxFileBytes to read it`,
    );
  }
  const extension = path.extname(absolute).slice(1).toLowerCase();
  if (IMAGE_EXTENSIONS.includes(extension)) return imageDocument(absolute, displayPath, stats);
  if (skipRead?.({ path: displayPath, size: stats.size, lastModifiedAt: stats.mtime.toISOString() })) {
    return new TextNode({ id: displayPath, text: "", ...fileFields(absolute, displayPath, stats) });
  }
  let bytes: Buffer;
  try {
    bytes = signal ? await readFile(absolute, { signal }) : await readFile(absolute);
  } catch (error) {
    signal?.throwIfAborted();
    return skip("unreadable", `file could not be read (${errorCode(error)})`);
  }
  if (bytes.includes(0)) return skip("binary", "binary file (contains NUL bytes)");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return skip("invalid_utf8", "not valid UTF-8 text; convert it to UTF-8 to read it");
  }
  text = text.replace(/\r\n?/g, "\n");
  if (text.trim() === "") return skip("empty", "empty file (no text besides whitespace)");
  const document = new TextNode({
    id: displayPath,
    text,
    ...fileFields(absolute, displayPath, stats),
  });
  // Markdown goes through its reader: its blocks (headings, code, lists, tables, with their lines) go beside the
  // document for the chunker. A file the reader finds no text in stays plain text.
  if (markdownReader.extensions.some((ending) => absolute.toLowerCase().endsWith(ending))) {
    try {
      const { blocks } = await markdownReader.read({
        bytes,
        path: displayPath,
        limits: { ...DEFAULT_READER_LIMITS, maxFileBytes },
        signal,
      });
      setDocumentBlocks(document, blocks);
    } catch (error) {
      if (!ReaderSkipError.isInstance(error)) throw error;
    }
  }
  return document;
}

/**
 * An image file as a document: an {@link ImageNode} read later by its path (never decoded here), captioned
 * with its file name (`revenue-chart.png` → `revenue chart`), since a file carries no alt text of its own.
 */
function imageDocument(absolute: string, displayPath: string, stats: Stats): ImageNode {
  const caption = path.basename(absolute, path.extname(absolute)).replace(/[-_]+/g, " ").trim();
  return new ImageNode({
    id: displayPath,
    text: caption,
    imagePath: absolute,
    ...fileFields(absolute, displayPath, stats),
  });
}

interface Root {
  absolute: string;
  displayPath: string;
  stats: Stats;
}

async function statRoots(paths: readonly string[], signal: AbortSignal | undefined): Promise<Root[]> {
  const roots: Root[] = [];
  const missing: string[] = [];
  for (const given of paths) {
    signal?.throwIfAborted();
    const absolute = path.resolve(given);
    const displayPath = toDisplayPath(given);
    try {
      roots.push({ absolute, displayPath, stats: await stat(absolute) });
    } catch (error) {
      if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") {
        throw new RagsynthError({
          code: "document_read",
          message: `Could not examine "${given}" (${errorCode(error)}). Check its permissions.`,
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

function validate(paths: readonly string[], extensions: readonly string[], maxFileBytes: number): void {
  if (!Array.isArray(paths) || paths.some((given) => typeof given !== "string" || given === "")) {
    throw new InvalidArgumentError({
      parameter: "paths",
      value: paths,
      expected: "be an array of non-empty path strings",
    });
  }
  if (
    !Array.isArray(extensions) ||
    extensions.some((ending) => typeof ending !== "string" || ending === "")
  ) {
    throw new InvalidArgumentError({
      parameter: "extensions",
      value: extensions,
      expected: 'be an array of file endings such as [".md", ".txt"]',
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

/** The metadata every document read from a file carries, with the bookkeeping keys hidden from embeddings and prompts. */
function fileFields(absolute: string, displayPath: string, stats: Stats) {
  return {
    metadata: {
      file_path: displayPath,
      file_name: path.basename(absolute),
      file_size: stats.size,
      last_modified_at: stats.mtime.toISOString(),
    },
    excludedEmbedMetadataKeys: [...HIDDEN_KEYS],
    excludedLlmMetadataKeys: [...HIDDEN_KEYS],
  };
}
