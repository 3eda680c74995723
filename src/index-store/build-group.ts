import { setImmediate as nextTurn } from "node:timers/promises";
import type { Embedder } from "../embedding/types.js";
import type {
  ChunkInput,
  IndexStore,
  SourceEdit,
  SourceFingerprint,
  StoredSource,
} from "../store/index-store.js";
import type { AnalyzedChunk } from "./analyzed-chunk.js";
import type { FromDocumentsOptions, IndexBuildStats } from "./build-index-options.js";
import { checkEmbeddings } from "./embed-nodes.js";

/** What {@link BuildGroup} needs besides the store: the build's options and what it learns as it goes. */
export interface BuildGroupContext {
  store: IndexStore;
  /** The stored documents' rows, by id, as the build found them. */
  before: ReadonlyMap<string, StoredSource>;
  /** The build's sources, which each flush sorts its documents into (added, changed, unchanged). */
  sources: IndexBuildStats["sources"];
  /** How many documents the build has to write, for `onLexicalProgress`. */
  total: number;
  keepVectors: boolean;
  embedModel: Embedder;
  embedBatchSize: number;
  signal: AbortSignal | undefined;
  onProgress: FromDocumentsOptions["onProgress"];
  onLexicalProgress: FromDocumentsOptions["onLexicalProgress"];
}

/**
 * A build's group: documents split and analyzed, held (each document's row and its chunks, not the document, whose
 * text and blocks go once split) until {@link flush} embeds the chunks the store has no vector for and writes them
 * in one transaction, with the stored documents that could not be read this time removed and the new times of those
 * found unchanged recorded. A kill loses at most one group; the next run finds the others written.
 */
export class BuildGroup {
  /** Chunks embedded by this build's model. */
  embedded = 0;
  /** Chunks whose content had no stored vector. */
  embeddedChunks = 0;
  /** Chunks written with new text (their rows and postings). */
  chunksWritten = 0;
  readonly #context: BuildGroupContext;
  #documents: { source: NonNullable<SourceEdit["source"]>; chunks: AnalyzedChunk[] }[] = [];
  #chunks = 0;
  // Stored documents that could not be read this time: their rows are removed in the group's transaction.
  #removed: string[] = [];
  // Stored documents whose bytes are unchanged under a new size or time: recorded with the group.
  #fingerprints: SourceFingerprint[] = [];
  #unreadable = 0;
  #done = 0;
  #dimensions: number | undefined;

  constructor(context: BuildGroupContext) {
    this.#context = context;
  }

  /** Chunks the group holds. */
  get chunks(): number {
    return this.#chunks;
  }

  /** A document read and split: its row and its chunks. */
  add(source: NonNullable<SourceEdit["source"]>, chunks: AnalyzedChunk[]): void {
    this.#documents.push({ source, chunks });
    this.#chunks += chunks.length;
  }

  /** A document that could not be read: its rows go with the group when the store holds it (`stored`). */
  unreadable(id: string, stored: boolean): void {
    this.#unreadable++;
    if (stored) this.#removed.push(id);
  }

  /** A stored document with the same bytes under a new size or time: its rows stay, this fingerprint is recorded. */
  sameBytes(fingerprint: SourceFingerprint): void {
    this.#fingerprints.push(fingerprint);
  }

  /** Writes the group (see the class) and empties it, then gives the event loop a turn. */
  async flush(): Promise<void> {
    const { store, before, sources, signal } = this.#context;
    if (this.#fingerprints.length > 0) {
      await store.setFingerprints(this.#fingerprints);
      this.#fingerprints = [];
    }
    if (this.#documents.length === 0 && this.#unreadable === 0) return;
    const vectors = await this.#vectors();
    signal?.throwIfAborted();
    const edits: SourceEdit[] = [];
    for (const { source, chunks: analyzed } of this.#documents) {
      const chunks: ChunkInput[] = analyzed.map((chunk) => ({
        node: chunk.node,
        contentHash: chunk.contentHash,
        // Asked for by the store only for a chunk it writes: one an edit left as it was keeps its postings.
        get terms() {
          return chunk.terms;
        },
        embedding: vectors.get(chunk.contentHash),
        holdsImage: chunk.holdsImage,
      }));
      const previous = before.get(source.id);
      if (!previous) sources.added.push(source.id);
      else
        (previous.contentHash === source.contentHash ? sources.unchanged : sources.changed).push(source.id);
      // New text: its chunks' rows and postings are written (a document read again with the same text keeps them).
      if (previous?.contentHash !== source.contentHash) this.chunksWritten += chunks.length;
      edits.push({ source, chunks });
    }
    if (edits.length > 0 || this.#removed.length > 0) await store.write(edits, this.#removed);
    this.#done += this.#documents.length + this.#unreadable;
    this.#context.onLexicalProgress?.({ added: this.#done, total: this.#context.total });
    this.#documents = [];
    this.#removed = [];
    this.#unreadable = 0;
    this.#chunks = 0;
    await nextTurn();
    signal?.throwIfAborted();
  }

  // The group's vectors by content hash: those the store holds, and the others embedded now (none when the store
  // keeps no vectors).
  async #vectors(): Promise<Map<string, Float32Array>> {
    const { store, keepVectors, embedModel, embedBatchSize, signal, onProgress } = this.#context;
    if (!keepVectors) return new Map();
    const all = this.#documents.flatMap(({ chunks }) => chunks);
    const vectors = await store.vectors([...new Set(all.map((chunk) => chunk.contentHash))]);
    const missing = new Map<string, string>();
    for (const chunk of all) {
      if (!vectors.has(chunk.contentHash)) {
        missing.set(chunk.contentHash, chunk.content ?? "");
        this.embeddedChunks++;
      }
    }
    const entries = [...missing];
    if (entries.length > 0 && this.embedded === 0) onProgress?.({ embedded: 0, total: entries.length });
    for (let start = 0; start < entries.length; start += embedBatchSize) {
      signal?.throwIfAborted();
      const batch = entries.slice(start, start + embedBatchSize);
      const result = await embedModel.getTextEmbeddings(
        batch.map(([, text]) => text),
        signal ? { signal } : {},
      );
      signal?.throwIfAborted();
      this.#dimensions = checkEmbeddings(embedModel, result, batch.length, this.embedded, this.#dimensions);
      for (const [index, [hash]] of batch.entries())
        vectors.set(hash, Float32Array.from(result[index] ?? []));
      this.embedded += batch.length;
      onProgress?.({ embedded: this.embedded, total: this.embedded });
    }
    return vectors;
  }
}
