import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { LexicalIndex } from "../lexical/lexical-index.js";
import { LEXICAL_ANALYZER } from "../lexical/lexical-tokens.js";
import type { IndexEntry } from "./embed-nodes.js";
import { readGzipLines, writeAtomically } from "./gzip-lines.js";
import {
  decodeHeader,
  decodeNode,
  INDEX_FORMAT,
  INDEX_VERSION,
  loadError,
  parseLine,
  readError,
} from "./index-file-lines.js";
import { IndexSaveError } from "./index-save-error.js";
import type { IndexSource } from "./index-source.js";
import { decodeVectorsFile, encodeVectorsFile, matrixChecksum, type VectorMatrix } from "./vectors-file.js";

/** The file an index is persisted to (gzip-compressed JSON Lines), inside the directory given to `persist` and `load`. */
export const INDEX_FILE_NAME = "ragsynth-index.json.gz";
const VECTORS_PREFIX = "ragsynth-vectors-";
// `.<file>.<pid>.<uuid>.tmp`: a save in progress, or left by a save that was killed.
const TEMPORARY = /^\.(ragsynth-[^/]*)\.(\d+)\.[0-9a-f-]+\.tmp$/;

/** The decoded content of an index file. Entries have no `embedding` when the index stored no vectors. */
export interface PersistedIndex {
  embedderId: string;
  sources: IndexSource[];
  entries: IndexEntry[];
  /** Whether the vectors are stored (false for an embedder cheap enough to run again, such as HashingEmbedder). */
  storeVectors?: boolean;
  /** The BM25 index over the nodes, kept in the same file. */
  lexical?: LexicalIndex | undefined;
}

/** The first line of an index file: what change detection needs, without the nodes or the BM25 postings. */
export interface IndexHeader {
  embedderId: string;
  sources: IndexSource[];
  storeVectors: boolean;
  /** Whether the file holds a BM25 index after its nodes. */
  lexical: boolean;
}

/** The error code a failed save is reported with, when it is not an abort. */
function saveError(file: string, dir: string, error: unknown, signal: AbortSignal | undefined): unknown {
  return signal?.aborted ? error : new IndexSaveError({ path: file, dir, cause: error });
}

/**
 * Writes the index to `<dir>/ragsynth-index.json.gz` and, when it stores vectors,
 * `<dir>/ragsynth-vectors-<checksum>.bin` (float32, with a header and a SHA-256 the JSON names), each through
 * a temporary file and a rename, so no reader ever sees half a file or a JSON with another save's vectors.
 * The index file is gzip-compressed JSON Lines, streamed as it is compressed: a header line (format, embedding model,
 * vectors, sources), one line per node, then the BM25 index's lines ({@link LexicalIndex.toJSONLines}).
 * Temporary files of a save that was killed, and vectors files no index names any more, are removed.
 * @throws IndexSaveError (`index_save`) when the folder or file cannot be written; an abort stays an `AbortError`.
 */
export async function writeIndexFile(
  dir: string,
  index: PersistedIndex,
  signal?: AbortSignal,
): Promise<string> {
  const file = path.join(dir, INDEX_FILE_NAME);
  const matrix = index.storeVectors === false ? undefined : toMatrix(index.entries);
  const checksum = matrix ? matrixChecksum(matrix) : undefined;
  const vectorsName = checksum ? `${VECTORS_PREFIX}${checksum.slice(0, 16)}.bin` : undefined;
  const header = JSON.stringify({
    format: INDEX_FORMAT,
    version: INDEX_VERSION,
    embedderId: index.embedderId,
    dimensions: matrix?.dimensions ?? 0,
    vectors: matrix ? { file: vectorsName, count: matrix.count, checksum } : null,
    nodes: index.entries.length,
    // The analyzer version, not just `true`: an index whose terms an older tokenizer made reads as having none,
    // so it is rebuilt from the stored nodes instead of mixing old and new terms.
    lexical: index.lexical !== undefined ? LEXICAL_ANALYZER : false,
    sources: index.sources,
  });
  function* lines(): Generator<string> {
    yield header;
    for (const { node, contentHash } of index.entries)
      yield JSON.stringify({ ...node.toJSON(), contentHash });
    if (index.lexical) yield* index.lexical.toJSONLines();
  }
  try {
    await mkdir(dir, { recursive: true });
    await removeStaleFiles(dir, undefined);
    if (matrix && vectorsName) {
      await writeAtomically(path.join(dir, vectorsName), encodeVectorsFile(matrix), signal);
    }
    await writeAtomically(file, lines(), signal);
    await removeStaleFiles(dir, vectorsName ?? "");
  } catch (error) {
    throw saveError(file, dir, error, signal);
  }
  return file;
}

/**
 * Removes temporary files whose writer is gone (a killed save) and, when `keepVectors` is given (after a
 * save), every vectors file but that one.
 */
async function removeStaleFiles(dir: string, keepVectors: string | undefined): Promise<void> {
  for (const name of await readdir(dir)) {
    const temporary = TEMPORARY.exec(name);
    const stale =
      (temporary && !isAlive(Number(temporary[2]))) ||
      (keepVectors !== undefined &&
        name.startsWith(VECTORS_PREFIX) &&
        name.endsWith(".bin") &&
        name !== keepVectors);
    if (stale) await rm(path.join(dir, name), { force: true });
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

function toMatrix(entries: readonly IndexEntry[]): VectorMatrix | undefined {
  const dimensions = entries[0]?.embedding?.length ?? 0;
  if (dimensions === 0) return undefined;
  const data = new Float32Array(entries.length * dimensions);
  entries.forEach((entry, row) => {
    if (entry.embedding) data.set(entry.embedding, row * dimensions);
  });
  return { count: entries.length, dimensions, data };
}

/**
 * Reads only the first line of `<dir>/ragsynth-index.json.gz` (embedding model, sources): enough to tell
 * whether the documents changed, without decompressing the nodes or the BM25 index. `undefined` when there
 * is no index.
 * @throws RagsynthError `index_load` for an unreadable, corrupt or incompatible file
 */
export async function readIndexHeader(dir: string, signal?: AbortSignal): Promise<IndexHeader | undefined> {
  const file = path.join(dir, INDEX_FILE_NAME);
  const lines = await openLines(file, signal);
  if (!lines) return undefined;
  let first: string | undefined;
  try {
    for await (const batch of lines) {
      first = batch[0];
      break;
    }
  } catch (error) {
    throw readError(file, error, signal);
  }
  const data = decodeHeader(parseLine(first ?? "", file, 0), file);
  return {
    embedderId: data.embedderId,
    sources: data.sources,
    storeVectors: data.vectors !== null,
    lexical: data.lexical === true,
  };
}

/**
 * Reads `<dir>/ragsynth-index.json.gz` and its vectors file; `undefined` when there is no index. The file
 * is decompressed and parsed line by line, so it is never one string in memory.
 * @throws RagsynthError `index_load` for an unreadable, corrupt or incompatible file, or vectors that are
 *   damaged or not finite; an abort stays an `AbortError`.
 */
export async function readIndexFile(dir: string, signal?: AbortSignal): Promise<PersistedIndex | undefined> {
  const file = path.join(dir, INDEX_FILE_NAME);
  const lines = await openLines(file, signal);
  if (!lines) return undefined;
  let header: ReturnType<typeof decodeHeader> | undefined;
  const entries: IndexEntry[] = [];
  let lexicalHeader: unknown;
  // Term lines stay raw: LexicalIndex parses a term's postings when a search first needs it.
  const termLines: string[] = [];
  let number = 0;
  try {
    for await (const batch of lines) {
      for (const line of batch) {
        if (header === undefined) header = decodeHeader(parseLine(line, file, number), file);
        else if (entries.length < header.nodes)
          entries.push(decodeNode(parseLine(line, file, number), entries.length, file));
        else if (lexicalHeader === undefined) lexicalHeader = parseLine(line, file, number);
        else termLines.push(line);
        number++;
      }
    }
  } catch (error) {
    if (RagsynthError.isInstance(error)) throw error;
    throw readError(file, error, signal);
  }
  if (header === undefined) throw loadError(file, "is empty");
  if (entries.length < header.nodes)
    throw loadError(
      file,
      `holds ${entries.length} of its ${header.nodes} nodes (it may have been cut short)`,
    );
  if (header.lexical && lexicalHeader === undefined)
    throw loadError(file, "has no BM25 index after its nodes (it may have been cut short)");
  const lexical = header.lexical ? LexicalIndex.fromJSONLines(lexicalHeader, termLines) : undefined;
  const index: PersistedIndex = { embedderId: header.embedderId, sources: header.sources, entries, lexical };
  const vectors = header.vectors;
  if (vectors === null) return { ...index, storeVectors: false };
  const vectorsFile = path.join(dir, path.basename(vectors.file));
  let bytes: Buffer;
  try {
    bytes = await readFile(vectorsFile, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw error;
    throw loadError(vectorsFile, "could not be read; the index names it for its vectors", error);
  }
  const { dimensions } = header;
  const matrix = decodeVectorsFile(bytes, {
    file: vectorsFile,
    count: entries.length,
    dimensions,
    checksum: vectors.checksum,
  });
  entries.forEach((entry, row) => {
    entry.embedding = matrix.data.subarray(row * dimensions, (row + 1) * dimensions);
  });
  return { ...index, storeVectors: true };
}

/** The file's lines in batches, or `undefined` when there is no file (or a part of `dir` is a file: no index there either). */
async function openLines(
  file: string,
  signal: AbortSignal | undefined,
): Promise<AsyncGenerator<string[]> | undefined> {
  const lines = readGzipLines(file, signal);
  try {
    // The generator opens the file on its first step; peek at it so a missing file is told apart.
    const first = await lines.next();
    return (async function* () {
      // A reader that stops after the first batch (readIndexHeader) ends this generator at that yield: the file's
      // generator must be ended too, or its file handle stays open until garbage collection (and Node warns).
      try {
        if (first.done) return;
        yield first.value;
        yield* lines;
      } finally {
        await lines.return(undefined);
      }
    })();
  } catch (error) {
    if (signal?.aborted) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw readError(file, error, signal);
  }
}
