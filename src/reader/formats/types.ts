import { checkString } from "../../errors/check-string.js";
import { InvalidArgumentError } from "../../errors/invalid-argument-error.js";

/**
 * The contract between a file format's reader and the rest of ragsynth: a reader turns one file's bytes into
 * a list of structural blocks (headings, paragraphs, code, list items, table rows), each knowing where it came
 * from (lines, page, notebook cell). The walk picks a reader by file ending; the chunker packs blocks into
 * chunks that keep to sections and carry their place. A reader never touches the file system itself.
 */

/** The kinds of block a reader emits. Every format maps onto these. */
export type DocumentBlockKind = "heading" | "paragraph" | "code" | "list_item" | "table_row";

/** One structural piece of a document, with its place in the source file. */
export interface DocumentBlock {
  kind: DocumentBlockKind;
  /**
   * The block's text as plain, readable text: no markup. A heading without its `#`s; code without fences; a list
   * item without its bullet; a table row as its cells joined by `" | "` (a table's header row is a `table_row` too).
   */
  text: string;
  /** Heading level, 1–6 (`heading` only). */
  depth?: number;
  /** The code's language when known (`code` only), as in Markdown fences: `ts`, `python`. */
  language?: string;
  /** 1-based, inclusive line range in the source file, for formats read as text lines. */
  lines?: { start: number; end: number };
  /** 1-based page number (PDF). */
  page?: number;
  /** 1-based cell number (Jupyter notebooks). */
  cell?: number;
  /** 1-based slide number, in the presentation's order (PowerPoint). */
  slide?: number;
  /** 1-based row number in its sheet (spreadsheets; the sheet is the heading above). */
  row?: number;
}

/** What a reader found in one file. */
export interface ReadFileResult {
  blocks: DocumentBlock[];
  /** Format-level facts worth keeping as document metadata: `title`, `language`, `page_count`… Strings and numbers only. */
  metadata?: Record<string, string | number>;
}

/** Why a file was not read. Each is a count in `index`/`ask` output; nothing is skipped without one. */
export const READER_SKIP_CODES = [
  "binary",
  "invalid_utf8",
  "unsupported",
  "too_large",
  "encrypted",
  "no_text_layer",
  "corrupt",
  "empty",
] as const;

export type ReaderSkipCode = (typeof READER_SKIP_CODES)[number];

/** Limits every reader honours, so a hostile file cannot take the process down. */
export interface ReaderLimits {
  /** Largest input file, in bytes. */
  maxFileBytes: number;
  /** Largest decompressed size of a compressed input (`.gz`, DOCX's zip parts), in bytes. */
  maxDecompressedBytes: number;
  /** Largest expansion ratio of a compressed input (decompressed / compressed). */
  maxCompressionRatio: number;
  /** Deepest nesting a tree-shaped format (HTML, XML) is walked to; deeper content is kept as flat text. */
  maxDepth: number;
}

/** The defaults of {@link ReaderLimits}. */
export const DEFAULT_READER_LIMITS: Readonly<ReaderLimits> = Object.freeze({
  maxFileBytes: 32 * 1024 * 1024,
  maxDecompressedBytes: 64 * 1024 * 1024,
  maxCompressionRatio: 100,
  maxDepth: 256,
});

/** What a reader is handed. */
export interface ReaderInput {
  /** The file's bytes (already size-checked against `limits.maxFileBytes`). */
  bytes: Uint8Array;
  /** The file's path as shown to users (for messages and metadata only; never opened by the reader). */
  path: string;
  limits: ReaderLimits;
  signal?: AbortSignal | undefined;
}

/**
 * Reads one format. `extensions` are lower-case endings with their dot (`.pdf`, `.tar.gz` style compound endings
 * allowed); `format` is the name counts and metadata use (`pdf`, `html`, `markdown`, `code`).
 */
export interface DocumentReader {
  format: string;
  extensions: readonly string[];
  read(input: ReaderInput): Promise<ReadFileResult> | ReadFileResult;
}

const skipMarker = Symbol.for("ragsynth.error.ReaderSkipError");

/**
 * Thrown by a reader for a file it cannot read for a reason users should see counted (`encrypted`,
 * `no_text_layer`, `corrupt`…). Any other error from a reader is counted as `corrupt` with its message.
 */
export class ReaderSkipError extends Error {
  override readonly name = "ReaderSkipError";
  readonly code: ReaderSkipCode;

  constructor(code: ReaderSkipCode, message: string) {
    // A custom reader's code is counted and printed by name: one the report does not know would be lost in it.
    if (!(READER_SKIP_CODES as readonly unknown[]).includes(code)) {
      throw new InvalidArgumentError({
        parameter: "ReaderSkipError code",
        value: code,
        expected: `be one of ${READER_SKIP_CODES.map((known) => `"${known}"`).join(", ")}`,
        hint: "Any other error a reader throws is counted as corrupt, with its message.",
      });
    }
    checkString("ReaderSkipError message", message);
    super(message);
    this.code = code;
    Object.defineProperty(this, skipMarker, { value: true });
  }

  /** True for a `ReaderSkipError` from any copy of the package. */
  static isInstance(error: unknown): error is ReaderSkipError {
    return typeof error === "object" && error !== null && skipMarker in error;
  }
}
