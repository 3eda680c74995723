import { buildIndex, type OpenedIndex, type OpenIndexOptions, readIndexDocuments } from "./load-index.js";
import type { Progress } from "./progress.js";

/**
 * The opener of the commands that answer (`ask`, `plan`, `eval`): reads the documents and opens the index in the
 * cache folder, built on the stored one, and saves it back while the caller goes on; the caller awaits
 * {@link indexSaved} before it ends. The offline embedding model weights queries by the index's documents
 * (`index.queryEmbedModel`).
 * @throws UsageError when a path does not exist; RagsynthError `document_read` when there is nothing to read
 */
export async function openIndex(options: OpenIndexOptions): Promise<OpenedIndex> {
  const { signal, progress } = options;
  return buildIndex(await readIndexDocuments(options), { persist: "background", signal, progress });
}

/**
 * Waits for the index write openRetrieval (pipeline.ts) left running (the index is written while the question is
 * answered: after an edit to one file of a 30 MB corpus the write takes longer than the answer), with a progress
 * line while it lasts. A failed write fails the command, as it did before the answer was printed.
 */
export async function indexSaved(opened: OpenedIndex, progress: Progress): Promise<void> {
  // The index could not be written (a read-only place): the question was answered from memory; the command fails.
  if (opened.saveError !== undefined) throw opened.saveError;
  const { saved } = opened.index;
  // No progress line for a write that is already done (or none was started).
  const done = await Promise.race([
    saved.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
  if (done) {
    await saved;
    return;
  }
  progress.start("Saving the index");
  try {
    await saved;
  } finally {
    progress.clear();
  }
}
