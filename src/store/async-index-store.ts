import type { IndexStore, SyncIndexStore } from "./index-store.js";

/**
 * The {@link IndexStore} over a synchronous store (SQLite): each method answers at once, in a settled promise.
 * `read` keeps one snapshot open while any read of this connection runs (overlapping reads, such as the lexical and
 * dense halves of a hybrid search, share it) and ends it when the last one settles; a write waits until then, so it
 * is never folded into a reader's snapshot. Do not write inside `read` (the write would wait for itself).
 */
export function asyncIndexStore(store: SyncIndexStore): IndexStore {
  let readers = 0;
  let release: (() => void) | undefined;
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;
  let writing = 0;
  const afterReads = async () => {
    while (idle && writing === 0) await idle.promise;
  };
  const written = async <T>(write: () => T): Promise<T> => {
    await afterReads();
    return write();
  };
  return {
    location: store.location,
    sync: store,
    meta: async () => store.meta(),
    async read(read) {
      if (readers === 0) {
        release = store.openSnapshot();
        let resolve = () => {};
        const promise = new Promise<void>((done) => {
          resolve = done;
        });
        idle = { promise, resolve };
      }
      readers++;
      try {
        return await read();
      } finally {
        readers--;
        if (readers === 0) {
          const ended = idle;
          idle = undefined;
          try {
            release?.();
          } finally {
            release = undefined;
            ended?.resolve();
          }
        }
      }
    },
    async replacing(work) {
      await afterReads();
      writing++;
      try {
        return await store.replacing(work);
      } finally {
        writing--;
      }
    },
    reset: (meta, options) => written(() => store.reset(meta, options)),
    sources: async () => store.sources(),
    sourceNodeIds: async (id) => store.sourceNodeIds(id),
    ...(store.bytesHashes ? { bytesHashes: async (ids) => store.bytesHashes?.(ids) ?? new Map() } : {}),
    ...(store.sourcesVersion ? { sourcesVersion: async () => store.sourcesVersion?.() } : {}),
    ...(store.sourcesOf ? { sourcesOf: async (ids) => store.sourcesOf?.(ids) ?? [] } : {}),
    ...(store.sourcesVersionAfterOwnWrites
      ? { sourcesVersionAfterOwnWrites: async (version) => store.sourcesVersionAfterOwnWrites?.(version) }
      : {}),
    write: (edits, removed) => written(() => store.write(edits, removed)),
    setOrder: (ids) => written(() => store.setOrder(ids)),
    setFingerprints: (fingerprints) => written(() => store.setFingerprints(fingerprints)),
    statistics: async () => store.statistics(),
    documentFrequencies: async (terms) => store.documentFrequencies(terms),
    postings: async (term) => store.postings(term),
    postingsAt: async (term, keys) => store.postingsAt(term, keys),
    chunks: async (keys) => store.chunks(keys),
    chunkByNodeId: async (id) => store.chunkByNodeId(id),
    async *allChunks(batchSize) {
      yield* store.allChunks(batchSize);
    },
    vectors: async (hashes) => store.vectors(hashes),
    async *allVectors(batchSize) {
      yield* store.allVectors(batchSize);
    },
    ...(store.denseTopK && {
      denseTopK: async (query: Float32Array, topK: number) => store.denseTopK?.(query, topK),
    }),
    hasImages: async () => store.hasImages(),
    close: async () => store.close(),
  };
}
