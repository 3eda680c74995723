import { RagsynthError } from "../errors/ragsynth-error.js";
import { scrubSecrets } from "../errors/scrub-secrets.js";
import type { IndexStore } from "../store/index-store.js";
import { isPostgresUrl, openPostgresStore, parsePostgresUrl } from "../store/open-postgres-store.js";
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
