import { setImmediate as nextTurn } from "node:timers/promises";
import { LexicalIndex } from "../lexical/lexical-index.js";
import type { IndexEntry } from "./embed-nodes.js";
import { lexicalContent } from "./index-retriever.js";
import type { PersistedIndex } from "./persistence.js";

/** Progress of bringing the lexical index up to date: nodes added of those to add. */
export interface LexicalProgress {
  added: number;
  total: number;
}

/** The stored BM25 index of a persisted index, when it has one. */
export function storedLexical(stored: PersistedIndex | undefined): LexicalIndex | undefined {
  return stored?.lexical;
}

/**
 * The BM25 index of `nodes`, updated from `previous` (the stored one) rather than rebuilt: the nodes of
 * removed or changed files are removed and only new nodes are added, so the corpus statistics are computed
 * once, at index time, and kept. Works in slices of ~50 ms that yield to the event loop (Ctrl-C, progress).
 */
export async function updateLexical(
  previous: { index: LexicalIndex; entries: readonly IndexEntry[] } | undefined,
  entries: readonly IndexEntry[],
  {
    signal,
    onProgress,
  }: { signal?: AbortSignal | undefined; onProgress?: ((progress: LexicalProgress) => void) | undefined },
): Promise<LexicalIndex> {
  const index = previous?.index ?? new LexicalIndex();
  // Node ids are stable (`file#n`), so a changed chunk keeps its id: compare content hashes too.
  const current = new Map(entries.map((entry) => [entry.node.id, entry.contentHash]));
  for (const { node, contentHash } of previous?.entries ?? []) {
    if (current.get(node.id) !== contentHash) index.remove(node.id);
  }
  const missing = entries.map((entry) => entry.node).filter((node) => !index.has(node.id));
  let sliceStart = performance.now();
  for (const [added, node] of missing.entries()) {
    if (performance.now() - sliceStart > 50) {
      onProgress?.({ added, total: missing.length });
      await nextTurn();
      sliceStart = performance.now();
    }
    signal?.throwIfAborted();
    index.add(node.id, lexicalContent(node));
  }
  onProgress?.({ added: missing.length, total: missing.length });
  return index;
}
