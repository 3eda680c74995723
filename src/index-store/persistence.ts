import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { TextNode } from "../schema/text-node.js";
import type { IndexEntry } from "./embed-nodes.js";
import { IndexSaveError } from "./index-save-error.js";

/** The file an index is persisted to, inside the directory given to `persist` and `load`. */
export const INDEX_FILE_NAME = "ragsynth-index.json";
const FORMAT = "ragsynth-vector-index";
const VERSION = 1;

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

/** The decoded content of an index file. */
export interface PersistedIndex {
  embedderId: string;
  sources: IndexSource[];
  entries: IndexEntry[];
}

/**
 * Writes the index to `<dir>/ragsynth-index.json` through a temporary file and a rename, so no reader ever sees half a file.
 * @throws IndexSaveError (`index_save`) when the folder or file cannot be written; an abort stays an `AbortError`.
 */
export async function writeIndexFile(
  dir: string,
  index: PersistedIndex,
  signal?: AbortSignal,
): Promise<string> {
  const file = path.join(dir, INDEX_FILE_NAME);
  const dimensions = index.entries[0]?.embedding.length ?? 0;
  const json = JSON.stringify({
    format: FORMAT,
    version: VERSION,
    embedderId: index.embedderId,
    dimensions,
    sources: index.sources,
    nodes: index.entries.map(({ node, contentHash, embedding }) => ({
      ...node.toJSON(),
      contentHash,
      embedding: encodeVector(embedding),
    })),
  });
  const temporary = path.join(dir, `.${INDEX_FILE_NAME}.${process.pid}.${randomUUID()}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    try {
      await writeFile(temporary, json, signal ? { signal } : {});
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => {});
      throw error;
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new IndexSaveError({ path: file, dir, cause: error });
  }
  return file;
}

/**
 * Reads `<dir>/ragsynth-index.json`; `undefined` when there is none.
 * @throws RagsynthError `index_load` for an unreadable, corrupt or incompatible file; an abort stays an `AbortError`.
 */
export async function readIndexFile(dir: string, signal?: AbortSignal): Promise<PersistedIndex | undefined> {
  const file = path.join(dir, INDEX_FILE_NAME);
  let json: string;
  try {
    json = await readFile(file, signal ? { encoding: "utf8", signal } : "utf8");
  } catch (error) {
    if (signal?.aborted) throw error;
    // ENOTDIR: a part of `dir` is a file, so there is no index there either (persisting says what to fix).
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw loadError(file, `could not be read (${code ?? error})`, error);
  }
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (error) {
    throw loadError(file, "is not valid JSON (it may have been cut short or edited)", error);
  }
  return decode(data, file);
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
    const embedding = typeof raw.embedding === "string" ? decodeVector(raw.embedding) : undefined;
    if (!embedding || embedding.length !== dimensions || typeof raw.contentHash !== "string") {
      throw fail(`has a malformed embedding at nodes[${index}] (expected ${dimensions} numbers)`);
    }
    const node = new TextNode({
      id: raw.id,
      text: raw.text,
      metadata: raw.metadata,
      excludedLlmMetadataKeys: raw.excludedLlmMetadataKeys,
      excludedEmbedMetadataKeys: raw.excludedEmbedMetadataKeys,
    });
    return { node, embedding, contentHash: raw.contentHash };
  });
  for (const [index, source] of sources.entries()) {
    if (!isRecord(source) || typeof source.id !== "string" || typeof source.contentHash !== "string") {
      throw fail(`has a malformed source at sources[${index}]`);
    }
    if (!isStringArray(source.nodeIds)) {
      throw fail(`has a malformed nodeIds list at sources[${index}]`);
    }
  }
  return { embedderId, sources: sources as IndexSource[], entries };
}

function loadError(file: string, what: string, cause?: unknown, hint?: string): RagsynthError {
  return new RagsynthError({
    code: "index_load",
    message: `The index file ${file} ${what}. ${hint ?? "Delete it to rebuild the index from the documents."}`,
    cause,
  });
}

// Vectors are stored as base64 of little-endian float64: exact, and about half the size of JSON numbers.
function encodeVector(vector: readonly number[]): string {
  const buffer = Buffer.allocUnsafe(vector.length * 8);
  for (let index = 0; index < vector.length; index++)
    buffer.writeDoubleLE(vector[index] as number, index * 8);
  return buffer.toString("base64");
}

function decodeVector(encoded: string): number[] | undefined {
  const buffer = Buffer.from(encoded, "base64");
  if (buffer.length % 8 !== 0) return undefined;
  const vector: number[] = new Array(buffer.length / 8);
  for (let index = 0; index < vector.length; index++) vector[index] = buffer.readDoubleLE(index * 8);
  return vector;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
