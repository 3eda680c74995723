import path from "node:path";
import type { Embedder } from "../embedding/types.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { hideUrlPasswords, scrubSecrets } from "../errors/scrub-secrets.js";
import type { IndexStore } from "../store/index-store.js";
import {
  isOtherUrl,
  isPostgresUrl,
  OTHER_URL_HINT,
  openPostgresStore,
  parsePostgresUrl,
} from "../store/open-postgres-store.js";
import { SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
import { IndexSaveError } from "./index-save-error.js";
import { hasStore, oldFormatError, openFreshStore, openStore } from "./store-index.js";

/**
 * Opens the index at `location`: a PostgreSQL URL (`postgres://…`, shared by many machines), or a folder holding
 * the SQLite file (`fresh`: a damaged file there is replaced, for a rebuild).
 */
export async function openStoreAt(location: string, { fresh = false } = {}): Promise<IndexStore> {
  if (isPostgresUrl(location)) return openPostgresStore(location);
  return fresh ? openFreshStore(location) : openStore(location);
}

/**
 * Whether `location` holds an index to read: a folder with the SQLite file, or a PostgreSQL schema with one
 * (opening it, which creates the empty schema when missing).
 * @throws RagsynthError `index_load` for a folder with only an index of the former format, or a server that fails
 */
export async function hasStoreAt(location: string): Promise<boolean> {
  if (!isPostgresUrl(location)) {
    const old = oldFormatError(location);
    if (old) throw old;
    return hasStore(location);
  }
  const store = await openPostgresStore(location);
  try {
    return (await store.meta()) !== undefined;
  } finally {
    await store.close();
  }
}

/** `location` as it may be printed: a PostgreSQL URL without its password, a folder as it is. */
export function storeLabel(location: string): string {
  return isPostgresUrl(location) ? parsePostgresUrl(location).location : location;
}

/**
 * A failure while writing a PostgreSQL index, as an `index_save` error naming the redacted URL (the password never
 * shows, neither in the message nor in the server's own text).
 */
export function postgresWriteError(location: string, error: unknown): RagsynthError {
  if (RagsynthError.isInstance(error)) return error;
  const { location: shown, password } = parsePostgresUrl(location);
  return new RagsynthError({
    code: "index_save",
    message: `Could not write the PostgreSQL index ${shown}: ${scrubSecrets(String((error as Error)?.message ?? error), [password])}. Check that the server runs and the user may write the schema; a failed write leaves the index as it was.`,
    cause: error,
  });
}

/**
 * A failure to write the index at `location`: for a PostgreSQL URL the server's error in ours
 * ({@link postgresWriteError}), for a folder an {@link IndexSaveError} naming its SQLite file. Our own errors (an
 * abort, a server that cannot be reached) pass as they are.
 */
export function indexWriteError(location: string, error: unknown): RagsynthError {
  if (RagsynthError.isInstance(error)) return error;
  if (isPostgresUrl(location)) return postgresWriteError(location, error);
  return new IndexSaveError({
    path: path.join(path.resolve(location), SQLITE_INDEX_FILE),
    dir: location,
    cause: error,
  });
}

/**
 * Opens the saved index at `dir` (a folder or a PostgreSQL URL) for `VectorStoreIndex.load`.
 * @throws RagsynthError `index_load` when there is none, it cannot be opened, or it was built with another
 *   embedding model than `embedModel` (its vectors would not compare with the queries')
 */
export async function openSavedStore(dir: string, embedModel: Embedder): Promise<IndexStore> {
  const shown = storeLabel(dir);
  if (!(await hasStoreAt(dir))) {
    throw new RagsynthError({
      code: "index_load",
      message: `No index in ${shown}. Build one with VectorStoreIndex.fromDocuments(...) and index.persist("${shown}"), or use fromDocumentsCached.`,
    });
  }
  let store: IndexStore;
  try {
    store = await openStoreAt(dir);
  } catch (error) {
    if (RagsynthError.isInstance(error)) throw error;
    throw new RagsynthError({
      code: "index_load",
      message: `Could not open the index in ${shown}: ${(error as Error).message}. Check the folder's permissions.`,
      cause: error,
    });
  }
  const meta = await store.meta();
  if (meta && meta.embedderId !== embedModel.id) {
    await store.close();
    throw new RagsynthError({
      code: "index_load",
      message: `The index in ${shown} was built with the embedding model "${meta.embedderId}", but got "${embedModel.id}"; their vectors do not compare. Pass the same embedModel, or rebuild with VectorStoreIndex.fromDocumentsCached (which re-embeds).`,
    });
  }
  return store;
}

/** Where a cached index lives: `store` (a PostgreSQL URL) when given, else the folder `cacheDir`. */
export function storeLocation(store: string | undefined, cacheDir: string | undefined): string {
  if (store !== undefined) {
    if (typeof store !== "string" || !isPostgresUrl(store)) {
      throw new InvalidArgumentError({
        parameter: "store",
        value: typeof store === "string" ? hideUrlPasswords(store) : store,
        expected: "be a PostgreSQL URL (postgres://user@host:5432/database?schema=name)",
        hint: "Leave it out for the SQLite index in cacheDir.",
      });
    }
    return store;
  }
  if (typeof cacheDir !== "string" || cacheDir === "") {
    throw new InvalidArgumentError({
      parameter: "cacheDir",
      value: cacheDir,
      expected: "be the folder of the index (or pass `store`, a PostgreSQL URL)",
    });
  }
  if (isOtherUrl(cacheDir)) {
    // Taken as a folder, it would quietly make a local index of that name.
    throw new InvalidArgumentError({
      parameter: "cacheDir",
      value: hideUrlPasswords(cacheDir),
      expected: "be a folder (or a PostgreSQL URL), not a URL of another kind",
      hint: OTHER_URL_HINT,
    });
  }
  return cacheDir;
}
