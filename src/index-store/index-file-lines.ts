import { RagsynthError } from "../errors/ragsynth-error.js";
import { LEXICAL_ANALYZER } from "../lexical/lexical-tokens.js";
import { ImageNode, type ImageNodeInit } from "../schema/image-node.js";
import { TextNode } from "../schema/text-node.js";
import type { IndexEntry } from "./embed-nodes.js";
import type { IndexSource } from "./index-source.js";

/** The index file's format name and the version this ragsynth reads and writes. */
export const INDEX_FORMAT = "ragsynth-vector-index";
export const INDEX_VERSION = 4;

/** Why a read failed, as `index_load`: a damaged gzip stream, or a file that could not be read; an abort stays as it is. */
export function readError(file: string, error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code.startsWith("Z_")) {
    return loadError(file, "is not a complete gzip file (it may have been cut short or edited)", error);
  }
  return loadError(file, `could not be read (${code ?? error})`, error);
}

export function parseLine(line: string, file: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw loadError(
      file,
      `is not valid JSON at line ${number + 1} (it may have been cut short or edited)`,
      error,
    );
  }
}

const OTHER_VERSION = Symbol.for("ragsynth.index.otherVersion");

/**
 * Whether `error` is the `index_load` error of an index file written in another format version (an older or newer
 * ragsynth): a cache can then simply be rebuilt, while a damaged file of this version should be looked at.
 */
export function isOtherIndexVersion(error: unknown): boolean {
  return typeof error === "object" && error !== null && OTHER_VERSION in error;
}

/** Checks the header line of an index file. @throws RagsynthError `index_load` */
export function decodeHeader(data: unknown, file: string) {
  const fail = (what: string) => loadError(file, what);
  if (!isRecord(data) || data.format !== INDEX_FORMAT)
    throw fail(`is not a ragsynth index (no "format": "${INDEX_FORMAT}")`);
  if (data.version !== INDEX_VERSION) {
    throw Object.assign(
      loadError(
        file,
        `has format version ${JSON.stringify(data.version)}, but this ragsynth reads version ${INDEX_VERSION}`,
        undefined,
        "Rebuild it (delete the file, or use rebuild), or use the ragsynth version that wrote it.",
      ),
      { [OTHER_VERSION]: data.version },
    );
  }
  const { embedderId, dimensions, sources, nodes, vectors } = data;
  if (typeof embedderId !== "string" || !Number.isInteger(dimensions))
    throw fail("has no valid embedderId/dimensions");
  if (!Array.isArray(sources) || !Number.isInteger(nodes)) throw fail("has no sources array or node count");
  for (const [index, source] of sources.entries()) {
    if (!isRecord(source) || typeof source.id !== "string" || typeof source.contentHash !== "string") {
      throw fail(`has a malformed source at sources[${index}]`);
    }
    if (!isStringArray(source.nodeIds)) {
      throw fail(`has a malformed nodeIds list at sources[${index}]`);
    }
  }
  if (
    vectors !== null &&
    (!isRecord(vectors) || typeof vectors.file !== "string" || typeof vectors.checksum !== "string")
  ) {
    throw fail("has no valid vectors entry");
  }
  return {
    embedderId,
    dimensions: dimensions as number,
    sources: sources as IndexSource[],
    nodes: nodes as number,
    vectors: vectors as { file: string; checksum: string } | null,
    // A BM25 index written by another analyzer version (or `true`, before versions) counts as none: rebuilt.
    lexical: data.lexical === LEXICAL_ANALYZER,
  };
}

/** Checks one node line of an index file. @throws RagsynthError `index_load` */
export function decodeNode(raw: unknown, index: number, file: string): IndexEntry {
  const fail = (what: string) => loadError(file, what);
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
}

/** An `index_load` error naming the file, what is wrong with it, and how to fix it. */
export function loadError(file: string, what: string, cause?: unknown, hint?: string): RagsynthError {
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
