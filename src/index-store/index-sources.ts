import type { TextNode } from "../schema/text-node.js";
import type { IndexBuildStats } from "./build-index-options.js";
import { contentHash } from "./embedding-cache.js";
import type { IndexSource } from "./index-source.js";

/**
 * The stored nodes of a file that has not changed since it was indexed: same size and modification time,
 * so it is neither hashed nor split again. A touched file (new time, same content) is split again, so its
 * nodes' dates are current, and its vectors come from the cache by content hash.
 */
export function unchangedNodes(
  document: TextNode,
  source: IndexSource | undefined,
  storedNodes: ReadonlyMap<string, TextNode>,
): TextNode[] | undefined {
  if (!source || !sameStat(document, source)) return undefined;
  const nodes: TextNode[] = [];
  for (const id of source.nodeIds) {
    const node = storedNodes.get(id);
    if (!node) return undefined;
    nodes.push(node);
  }
  return nodes;
}

/**
 * Whether a document has the size and modification time its stored source was indexed with, and was read by the
 * same reader (a new reader for its ending makes another text from the same bytes).
 */
export function sameStat(
  document: TextNode,
  source: Pick<IndexSource, "size" | "lastModifiedAt" | "reader">,
): boolean {
  const { file_size: size, last_modified_at: modified, reader } = document.metadata;
  return (
    source.reader === (typeof reader === "string" ? reader : undefined) &&
    source.size !== undefined &&
    source.lastModifiedAt !== undefined &&
    source.size === size &&
    source.lastModifiedAt === modified
  );
}

/** The stored description of a document: its id, content hash, size, modification time and node ids. */
export function describeSource(
  document: TextNode,
  nodes: readonly TextNode[],
  kept: IndexSource | undefined,
): IndexSource {
  const { file_size: size, last_modified_at: lastModifiedAt, reader } = document.metadata;
  return {
    id: document.id,
    // An unchanged file (same size and time) keeps its stored hash: no need to hash it again.
    contentHash: kept?.contentHash ?? contentHash(document.text),
    ...(typeof size === "number" ? { size } : {}),
    ...(typeof lastModifiedAt === "string" ? { lastModifiedAt } : {}),
    ...(typeof reader === "string" ? { reader } : {}),
    nodeIds: nodes.map((node) => node.id),
  };
}

/** Document ids by how `current` compares with `previous`: added, changed, unchanged (by content hash) and removed. */
export function diffSources(
  previous: readonly Pick<IndexSource, "id" | "contentHash">[],
  current: readonly Pick<IndexSource, "id" | "contentHash">[],
): IndexBuildStats["sources"] {
  const before = new Map(previous.map((source) => [source.id, source.contentHash]));
  const now = new Set(current.map((source) => source.id));
  const result: IndexBuildStats["sources"] = { added: [], changed: [], unchanged: [], removed: [] };
  for (const source of current) {
    const hash = before.get(source.id);
    if (hash === undefined) result.added.push(source.id);
    else (hash === source.contentHash ? result.unchanged : result.changed).push(source.id);
  }
  result.removed = previous.filter((source) => !now.has(source.id)).map((source) => source.id);
  return result;
}
