import type { Stats } from "node:fs";
import { constants, open } from "node:fs/promises";
import { IMAGE_EXTENSIONS, ImageNode } from "../schema/image-node.js";
import { TextNode } from "../schema/text-node.js";
import { sha256Hex } from "../util/sha256.js";
import { setDocumentBlocks } from "./document-blocks.js";
import { setDocumentBytesHash } from "./document-bytes-hash.js";
import { binaryReason, looksBinary, SNIFF_LENGTH } from "./formats/looks-binary.js";
import type { ChosenReader, ReaderRegistry } from "./formats/registry.js";
import {
  type DocumentBlock,
  type ReaderInput,
  type ReaderLimits,
  type ReaderSkipCode,
  ReaderSkipError,
  type ReadFileResult,
} from "./formats/types.js";
import { resolveInsideRoots } from "./inside-roots.js";
import { checkedReaderResult, withoutKeys } from "./reader-result.js";
import type { SkipCode, SkippedPath } from "./skipped-path.js";

/** Metadata keys hidden from the LLM and the embedder (bookkeeping, as LlamaIndex's SimpleDirectoryReader hides them). */
const HIDDEN_KEYS = ["file_name", "file_size", "last_modified_at", "format", "reader"];

/** What reading one file needs. */
export interface ReadFileContext {
  registry: ReaderRegistry;
  limits: ReaderLimits;
  /** Real paths a file must lie in. */
  allowedRoots: readonly string[];
  /** Image endings (without dot) read as image documents. */
  imageEndings: ReadonlySet<string>;
  skipRead: SkipRead | undefined;
  signal: AbortSignal | undefined;
  /** Where a file's bytes are parsed instead of here, when it can be (an index build's worker threads). */
  parseElsewhere?: ParseElsewhere | undefined;
}

/**
 * Parses a file's bytes with the reader chosen for it somewhere else (an index build's worker thread): what the
 * reader returned, or `undefined` when it cannot be parsed there (it is then parsed here). Throws what the reader
 * threw (a `ReaderSkipError` with its code, else an error with the reader's message), so a file is skipped with the
 * same code and reason wherever it was parsed.
 */
export type ParseElsewhere = (
  chosen: ChosenReader,
  input: ReaderInput,
) => Promise<ReadFileResult | undefined>;

/**
 * A caller's say on a file before it is read, from its path, size, modification time and reader id: `true` to list
 * it unread (the caller holds its content), a skip to report it unread (what reading it gave before), else `false`.
 */
export type SkipRead = (file: {
  path: string;
  size: number;
  lastModifiedAt: string;
  reader: string;
}) => boolean | { code: ReaderSkipCode; reason: string };

/** A file read: its document, or why not, and its real path (to read each file once). */
export type FileOutcome =
  | {
      document: TextNode;
      realPath: string;
      format: string;
      /** A `skipRead` file's, listed without its text: how to read it after all. */
      unread?: ExaminedFile;
    }
  | { skipped: SkippedPath; realPath?: string };

/**
 * A file examined but not read yet: `stub` is its document with the file's metadata and an empty text;
 * {@link readExaminedFile} reads it.
 */
export interface ExaminedFile {
  stub: TextNode;
  realPath: string;
  displayPath: string;
  chosen: ChosenReader;
  /** Whether a reader is registered for its ending (the fallback's files are sniffed for NUL bytes first). */
  registered: boolean;
}

/**
 * Reads one walked file: checks it lies inside the roots (`resolveInsideRoots`), picks its reader by ending (the
 * fallback reads unknown endings when they are text), and makes its document: the blocks' texts joined by blank
 * lines, the blocks kept beside it (`getDocumentBlocks`), metadata `format` and `reader`. A reader's
 * `ReaderSkipError` is recorded under its code; any other error of a reader as `corrupt`, with its message.
 */
export async function readWalkedFile(
  absolute: string,
  displayPath: string,
  context: ReadFileContext,
): Promise<FileOutcome> {
  const examined = examineWalkedFile(absolute, displayPath, context);
  return "examined" in examined ? readExaminedFile(examined.examined, context) : examined;
}

/**
 * The first half of {@link readWalkedFile}, which reads no content: the file's place, size, reader, and its
 * document when nothing needs reading (an image, a `skipRead` file), else an {@link ExaminedFile} to read later.
 */
export function examineWalkedFile(
  absolute: string,
  displayPath: string,
  context: ReadFileContext,
  walkedRealPath?: string,
): FileOutcome | { examined: ExaminedFile; realPath: string } {
  const skip = (code: SkipCode, reason: string, realPath?: string): FileOutcome => ({
    skipped: { path: displayPath, code, reason },
    ...(realPath ? { realPath } : {}),
  });
  const inside = resolveInsideRoots(absolute, context.allowedRoots, walkedRealPath);
  if (!inside.ok) {
    if (inside.code === "missing") return skip("unreadable", "vanished while being read (no such file)");
    return skip(inside.code, inside.reason);
  }
  const { realPath, stats } = inside;
  const maxFileBytes = context.limits.maxFileBytes;
  if (stats.size > maxFileBytes) {
    return skip(
      "too_large",
      `${stats.size} bytes is over maxFileBytes (${maxFileBytes}); raise maxFileBytes to read it`,
      realPath,
    );
  }
  const { name, stem, ending } = nameParts(displayPath);
  if (IMAGE_EXTENSIONS.includes(ending)) {
    if (context.imageEndings.has(ending))
      return {
        document: imageDocument(absolute, displayPath, { name, stem }, stats),
        realPath,
        format: "image",
      };
    return skip(
      "unsupported",
      `an image; list .${ending} in extensions to index images by their file name`,
      realPath,
    );
  }
  const registered = context.registry.readerFor(name);
  const chosen: ChosenReader = registered ?? context.registry.fallback;
  const stub = new TextNode({
    id: displayPath,
    text: "",
    ...fileFields(name, displayPath, statFields(stats), { format: chosen.reader.format, reader: chosen.id }),
  });
  const known = context.skipRead?.({
    path: displayPath,
    size: stats.size,
    lastModifiedAt: stub.metadata.last_modified_at as string,
    reader: chosen.id,
  });
  const examined: ExaminedFile = {
    stub,
    realPath,
    displayPath,
    chosen,
    registered: registered !== undefined,
  };
  if (known === true) return { document: stub, realPath, format: chosen.reader.format, unread: examined };
  if (known) return skip(known.code, known.reason, realPath);
  return { examined, realPath };
}

/** The second half of {@link readWalkedFile}: reads an examined file's bytes and makes its document. */
export async function readExaminedFile(
  examined: ExaminedFile,
  context: ReadFileContext,
): Promise<FileOutcome> {
  return (await readExamined(examined, context, undefined)) as FileOutcome;
}

/**
 * {@link readExaminedFile}, unless the file's bytes hash to `bytesHash` (SHA-256, hex): then `"same-bytes"`,
 * without parsing them.
 */
export function readExaminedFileUnlessBytes(
  examined: ExaminedFile,
  context: ReadFileContext,
  bytesHash: string,
): Promise<FileOutcome | "same-bytes"> {
  return readExamined(examined, context, bytesHash);
}

async function readExamined(
  { stub, realPath, displayPath, chosen, registered }: ExaminedFile,
  context: ReadFileContext,
  unlessBytesHash: string | undefined,
): Promise<FileOutcome | "same-bytes"> {
  const skip = (code: SkipCode, reason: string): FileOutcome => ({
    skipped: { path: displayPath, code, reason },
    realPath,
  });
  const maxFileBytes = context.limits.maxFileBytes;
  let bytes: Uint8Array;
  try {
    const read = await readBounded(realPath, maxFileBytes, !registered, context.signal);
    if (typeof read === "number") {
      const reason = `${read} bytes is over maxFileBytes (${maxFileBytes}); raise maxFileBytes to read it`;
      return skip("too_large", reason);
    }
    if (read === "not_a_file") return skip("not_a_file", "not a regular file (a device, FIFO or socket)");
    if (!(read instanceof Uint8Array)) return skip("binary", binaryReason(read.binary));
    bytes = read;
  } catch (error) {
    context.signal?.throwIfAborted();
    return skip("unreadable", `file could not be read (${errorCode(error)})`);
  }
  const bytesHash = sha256Hex(bytes);
  if (bytesHash === unlessBytesHash) return "same-bytes";
  let blocks: DocumentBlock[];
  let metadata: Record<string, string | number> = {};
  try {
    const input: ReaderInput = { bytes, path: displayPath, limits: context.limits, signal: context.signal };
    let result = context.parseElsewhere ? await context.parseElsewhere(chosen, input) : undefined;
    if (result === undefined) {
      // Not parsed elsewhere: a worker thread that was ended by an abort answers nothing, and nothing is parsed then.
      context.signal?.throwIfAborted();
      result = await chosen.reader.read(input);
    }
    ({ blocks, metadata } = checkedReaderResult(result, chosen.reader.format));
  } catch (error) {
    context.signal?.throwIfAborted();
    // A skip entry already names its path: a reader's message that starts with it says it once.
    const own = (message: string) =>
      message.startsWith(`${displayPath}: `) ? message.slice(displayPath.length + 2) : message;
    if (ReaderSkipError.isInstance(error)) return skip(error.code, own(error.message));
    const message = own(error instanceof Error ? error.message : String(error));
    return skip("corrupt", `the ${chosen.reader.format} reader failed: ${message}`);
  }
  const text = blocks.map((block) => block.text).join("\n\n");
  if (text.trim() === "") return skip("empty", "empty file (no text besides whitespace)");
  const document = new TextNode({
    id: displayPath,
    text,
    excludedEmbedMetadataKeys: [...HIDDEN_KEYS],
    excludedLlmMetadataKeys: [...HIDDEN_KEYS],
    // The file's own fields first and never overwritten by the reader's.
    metadata: { ...stub.metadata, ...withoutKeys(metadata, stub.metadata) },
  });
  setDocumentBlocks(document, blocks);
  setDocumentBytesHash(document, bytesHash);
  return { document, realPath, format: chosen.reader.format };
}

/**
 * The file's bytes, read through a descriptor opened without following links and without blocking (a FIFO swapped
 * in after the check cannot hang the walk), never more than `maxFileBytes`. With `sniff`, a file whose first bytes
 * hold a NUL byte is answered `"binary"` without reading the rest.
 */
async function readBounded(
  realPath: string,
  maxFileBytes: number,
  sniff: boolean,
  signal: AbortSignal | undefined,
): Promise<Uint8Array | { binary: Uint8Array } | "not_a_file" | number> {
  const handle = await open(realPath, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return "not_a_file";
    // A file that grew past the limit since it was examined: its size.
    if (stats.size > maxFileBytes) return stats.size;
    const buffer = Buffer.alloc(Math.min(stats.size, maxFileBytes) + 1);
    let length = 0;
    let sniffed = !sniff;
    while (length < buffer.length) {
      signal?.throwIfAborted();
      // The first read is the sniff window only, so a large binary is passed over after 8 KiB.
      const want = sniffed ? buffer.length - length : Math.min(SNIFF_LENGTH, buffer.length) - length;
      const { bytesRead } = await handle.read(buffer, length, want, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (!sniffed && length >= Math.min(SNIFF_LENGTH, stats.size)) {
        if (looksBinary(buffer.subarray(0, length))) return { binary: buffer.subarray(0, length) };
        sniffed = true;
      }
    }
    if (length > maxFileBytes) return length;
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/**
 * An image file as a document: an {@link ImageNode} read later by its path (never decoded here), captioned
 * with its file name (`revenue-chart.png` → `revenue chart`), since a file carries no alt text of its own.
 */
/**
 * A file's name, its stem and its ending (lower-cased, without the dot) from its display path (always "/"-separated),
 * split as path.basename and path.extname split them (".bashrc" has no ending), in one pass: those walk the path
 * again each, a call or two per file of an ask's listing.
 */
export function nameParts(displayPath: string): { name: string; stem: string; ending: string } {
  const name = displayPath.slice(displayPath.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0
    ? { name, stem: name.slice(0, dot), ending: name.slice(dot + 1).toLowerCase() }
    : { name, stem: name, ending: "" };
}

function imageDocument(
  absolute: string,
  displayPath: string,
  { name, stem }: { name: string; stem: string },
  stats: Stats,
): ImageNode {
  const caption = stem.replace(/[-_]+/g, " ").trim();
  return new ImageNode({
    id: displayPath,
    text: caption,
    imagePath: absolute,
    ...fileFields(name, displayPath, statFields(stats), undefined),
  });
}

/** The metadata every document read from a file carries, with the bookkeeping keys hidden from embeddings and prompts. */
/**
 * The document a listing gives a file it has not read (its metadata, an empty text), made again from what an earlier
 * listing found: for a caller that remembers listings (an index's freshness check, `listing-snapshot.ts`).
 */
export function listedFileStub(
  displayPath: string,
  file: { size: number; lastModifiedAt: string; format: string; reader: string },
): TextNode {
  return new TextNode({
    id: displayPath,
    text: "",
    ...fileFields(nameParts(displayPath).name, displayPath, file, file),
  });
}

function fileFields(
  name: string,
  displayPath: string,
  { size, lastModifiedAt }: { size: number; lastModifiedAt: string },
  chosen: { format: string; reader: string } | undefined,
) {
  return {
    metadata: {
      file_path: displayPath,
      file_name: name,
      file_size: size,
      last_modified_at: lastModifiedAt,
      ...(chosen ? { format: chosen.format, reader: chosen.reader } : {}),
    } as Record<string, string | number>,
    excludedEmbedMetadataKeys: [...HIDDEN_KEYS],
    excludedLlmMetadataKeys: [...HIDDEN_KEYS],
  };
}

function statFields(stats: Stats): { size: number; lastModifiedAt: string } {
  return { size: stats.size, lastModifiedAt: stats.mtime.toISOString() };
}

function errorCode(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : String(error);
}
