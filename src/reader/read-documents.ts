import type { TextNode } from "../schema/text-node.js";
import { mapConcurrent } from "../util/map-concurrent.js";
import { listDocuments, type ReadDocumentsOptions } from "./list-documents.js";
import type { SkippedPath } from "./skipped-path.js";

export type { DocumentListing, ReadDocumentsOptions } from "./list-documents.js";
export type { SkipCode, SkippedPath } from "./skipped-path.js";

// Files read at once: the reads overlap in libuv's thread pool instead of waiting in turn.
const READ_CONCURRENCY = 8;

/** What {@link readDocuments} found. */
export interface ReadDocumentsResult {
  /** One document per file, sorted by `file_path`. Empty when nothing matched: report that to the user. */
  documents: TextNode[];
  /** Everything passed over, sorted by path. Nothing is dropped without an entry here. */
  skipped: SkippedPath[];
  /** Documents read, by format (`{ markdown: 12, text: 3 }`). */
  formats: Record<string, number>;
}

/**
 * Reads files and folders into documents, one per file: `TextNode`s whose id is their `file_path`, with metadata
 * `file_path`, `file_name`, `file_size`, `last_modified_at`, `format` and `reader` (only `file_path` and what the
 * reader found, such as a title, are shown to the LLM and embedder).
 *
 * Each file is read by the reader registered for its ending (`readers` adds or replaces them); a file with no
 * reader is read as plain text when it is text (no NUL bytes; UTF-8, or UTF-16 with a BOM). A document's `text` is
 * its blocks' texts joined by blank lines, and the blocks stay beside it (`getDocumentBlocks`).
 *
 * Folders are walked recursively. Passed over, each with an entry in `skipped` (a folder is not entered): hidden
 * names, `.gitignore`/`.ragsignore` rules, default folders (`node_modules`, `.git`, `dist`…), `exclude` globs,
 * files not matching `include` or `extensions`, symbolic links out of the paths given or in a loop, devices and
 * FIFOs, and files that are binary, too large, empty, unreadable, or that their reader refused (`encrypted`,
 * `corrupt`…). One bad file never fails the walk. Every file is read only inside the paths given (after
 * resolving links), and each real file once.
 *
 * Image files (`.png`, `.jpg`, … when their endings are in `extensions`, or named explicitly) become
 * `ImageNode`s captioned with their file name; their pixels are read only when a model is sent them.
 *
 * @throws RagsynthError with code `document_read` when a path does not exist or cannot be examined;
 *   InvalidArgumentError for malformed options.
 * @example
 * const { documents, skipped } = await readDocuments(["docs"], { exclude: ["drafts/**"] });
 */
export async function readDocuments(
  paths: readonly string[],
  options: ReadDocumentsOptions = {},
): Promise<ReadDocumentsResult> {
  const listing = await listDocuments(paths, options);
  const read = await mapConcurrent(
    listing.documents,
    READ_CONCURRENCY,
    options.signal ?? new AbortController().signal,
    (document) => listing.read(document),
  );
  const documents = read.filter((document): document is TextNode => document !== undefined);
  return { documents, ...listing.report() };
}
