import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { constants, gunzip, gzip } from "node:zlib";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { ImageNode, type ImageNodeInit } from "../schema/image-node.js";
import { TextNode } from "../schema/text-node.js";
import type { IndexEntry } from "./embed-nodes.js";
import { IndexSaveError } from "./index-save-error.js";
import { decodeVectorsFile, encodeVectorsFile, matrixChecksum, type VectorMatrix } from "./vectors-file.js";

/** The file an index is persisted to (gzip-compressed JSON), inside the directory given to `persist` and `load`. */
export const INDEX_FILE_NAME = "ragsynth-index.json.gz";
// Level 1: most of the size win (text and postings compress ~4×) for a fraction of the time; off the main thread.
const compress = promisify(gzip);
const decompress = promisify(gunzip);
const FORMAT = "ragsynth-vector-index";
const VERSION = 2;
const VECTORS_PREFIX = "ragsynth-vectors-";
// `.<file>.<pid>.<uuid>.tmp`: a save in progress, or left by a save that was killed.
const TEMPORARY = /^\.(ragsynth-[^/]*)\.(\d+)\.[0-9a-f-]+\.tmp$/;

/** One source document of an index: what its content was when it was indexed, and its nodes. */
export interface IndexSource {
  /** The document's id (its `file_path` for documents from `readDocuments`). */
  id: string;
  /** SHA-256 of the document's text. */
  contentHash: string;
  /** The file's size in bytes, when the document carried `file_size`. */
  size?: number;
  /** The file's modification time, when the document carried `last_modified_at`. */
  lastModifiedAt?: string;
  /** Ids of the nodes split from this document. */
  nodeIds: string[];
}

/** The decoded content of an index file. Entries have no `embedding` when the index stored no vectors. */
export interface PersistedIndex {
  embedderId: string;
  sources: IndexSource[];
  entries: IndexEntry[];
  /** Whether the vectors are stored (false for an embedder cheap enough to run again, such as HashingEmbedder). */
  storeVectors?: boolean;
  /** Anything else an index keeps beside its nodes (a lexical index), stored as given. */
  extra?: Record<string, unknown>;
}

/** The error code a failed save is reported with, when it is not an abort. */
function saveError(file: string, dir: string, error: unknown, signal: AbortSignal | undefined): unknown {
  return signal?.aborted ? error : new IndexSaveError({ path: file, dir, cause: error });
}

/**
 * Writes the index to `<dir>/ragsynth-index.json.gz` (nodes, sources, metadata, lexical index; gzip-compressed JSON) and, when it stores vectors,
 * `<dir>/ragsynth-vectors-<checksum>.bin` (float32, with a header and a SHA-256 the JSON names), each through
 * a temporary file and a rename, so no reader ever sees half a file or a JSON with another save's vectors.
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
  const json = JSON.stringify({
    format: FORMAT,
    version: VERSION,
    embedderId: index.embedderId,
    dimensions: matrix?.dimensions ?? 0,
    vectors: matrix ? { file: vectorsName, count: matrix.count, checksum } : null,
    sources: index.sources,
    nodes: index.entries.map(({ node, contentHash }) => ({ ...node.toJSON(), contentHash })),
    ...(index.extra ? { extra: index.extra } : {}),
  });
  try {
    await mkdir(dir, { recursive: true });
    await removeStaleFiles(dir, undefined);
    if (matrix && vectorsName) {
      await writeAtomically(path.join(dir, vectorsName), encodeVectorsFile(matrix), signal);
    }
    await writeAtomically(file, await compress(json, { level: constants.Z_BEST_SPEED }), signal);
    await removeStaleFiles(dir, vectorsName ?? "");
  } catch (error) {
    throw saveError(file, dir, error, signal);
  }
  return file;
}

async function writeAtomically(file: string, data: string | Buffer, signal: AbortSignal | undefined) {
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomUUID()}.tmp`,
  );
  try {
    await writeFile(temporary, data, signal ? { signal } : {});
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
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
 * Reads `<dir>/ragsynth-index.json.gz` and its vectors file; `undefined` when there is no index.
 * @throws RagsynthError `index_load` for an unreadable, corrupt or incompatible file, or vectors that are
 *   damaged or not finite; an abort stays an `AbortError`.
 */
export async function readIndexFile(dir: string, signal?: AbortSignal): Promise<PersistedIndex | undefined> {
  const file = path.join(dir, INDEX_FILE_NAME);
  let compressed: Buffer;
  try {
    compressed = await readFile(file, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw error;
    // ENOTDIR: a part of `dir` is a file, so there is no index there either (persisting says what to fix).
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw loadError(file, `could not be read (${code ?? error})`, error);
  }
  let json: string;
  try {
    json = (await decompress(compressed)).toString("utf8");
  } catch (error) {
    throw loadError(file, "is not a complete gzip file (it may have been cut short or edited)", error);
  }
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (error) {
    throw loadError(file, "is not valid JSON (it may have been cut short or edited)", error);
  }
  const index = decode(data, file);
  const vectors = (data as { vectors?: unknown }).vectors;
  if (vectors === null) return { ...index, storeVectors: false };
  if (!isRecord(vectors) || typeof vectors.file !== "string" || typeof vectors.checksum !== "string") {
    throw loadError(file, "has no valid vectors entry");
  }
  const vectorsFile = path.join(dir, path.basename(vectors.file));
  let bytes: Buffer;
  try {
    bytes = await readFile(vectorsFile, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw error;
    throw loadError(vectorsFile, "could not be read; the index names it for its vectors", error);
  }
  const dimensions = (data as { dimensions: number }).dimensions;
  const matrix = decodeVectorsFile(bytes, {
    file: vectorsFile,
    count: index.entries.length,
    dimensions,
    checksum: vectors.checksum,
  });
  index.entries.forEach((entry, row) => {
    entry.embedding = matrix.data.subarray(row * dimensions, (row + 1) * dimensions);
  });
  return { ...index, storeVectors: true };
}

function decode(data: unknown, file: string): PersistedIndex {
  const fail = (what: string) => loadError(file, what);
  if (!isRecord(data) || data.format !== FORMAT)
    throw fail(`is not a ragsynth index (no "format": "${FORMAT}")`);
  if (data.version !== VERSION) {
    throw loadError(
      file,
      `has format version ${JSON.stringify(data.version)}, but this ragsynth reads version ${VERSION}`,
      undefined,
      "Rebuild it (delete the file, or use rebuild), or use the ragsynth version that wrote it.",
    );
  }
  const { embedderId, dimensions, sources, nodes } = data;
  if (typeof embedderId !== "string" || !Number.isInteger(dimensions))
    throw fail("has no valid embedderId/dimensions");
  if (!Array.isArray(sources) || !Array.isArray(nodes)) throw fail("has no sources or nodes array");
  const entries = nodes.map((raw: unknown, index): IndexEntry => {
    if (
      !isRecord(raw) ||
      typeof raw.text !== "string" ||
      typeof raw.id !== "string" ||
      !isRecord(raw.metadata) ||
      !isStringArray(raw.excludedLlmMetadataKeys) ||
      !isStringArray(raw.excludedEmbedMetadataKeys)
    ) {
      throw fail(`has a malformed node at nodes[${index}]`);
    }
    if (typeof raw.contentHash !== "string") throw fail(`has no contentHash at nodes[${index}]`);
    const fields = {
      id: raw.id,
      text: raw.text,
      metadata: raw.metadata,
      excludedLlmMetadataKeys: raw.excludedLlmMetadataKeys,
      excludedEmbedMetadataKeys: raw.excludedEmbedMetadataKeys,
    };
    // Image documents keep their image (path, URL or bytes) across a save and load.
    const node = ["imagePath", "imageUrl", "image"].some((key) => typeof raw[key] === "string")
      ? new ImageNode({ ...(raw as unknown as ImageNodeInit), ...fields })
      : new TextNode(fields);
    return { node, contentHash: raw.contentHash };
  });
  for (const [index, source] of sources.entries()) {
    if (!isRecord(source) || typeof source.id !== "string" || typeof source.contentHash !== "string") {
      throw fail(`has a malformed source at sources[${index}]`);
    }
    if (!isStringArray(source.nodeIds)) {
      throw fail(`has a malformed nodeIds list at sources[${index}]`);
    }
  }
  const extra = isRecord(data.extra) ? { extra: data.extra } : {};
  return { embedderId, sources: sources as IndexSource[], entries, ...extra };
}

function loadError(file: string, what: string, cause?: unknown, hint?: string): RagsynthError {
  return new RagsynthError({
    code: "index_load",
    message: `The index file ${file} ${what}. ${hint ?? "Delete it to rebuild the index from the documents."}`,
    cause,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
