import { basename, dirname } from "node:path";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import { SQLITE_INDEX_FILE } from "../store/sqlite-index-store.js";
import { UsageError } from "./usage-error.js";

/**
 * Where `--store` (or `RAGSYNTH_STORE`) and `--cache-dir` put the index: a PostgreSQL URL (`url`), or a folder
 * (`cacheDir`; `--store` naming the SQLite file itself means its folder; undefined: the default beside the
 * documents). Only the operator chooses it: a questions file or a queue job never does.
 * @throws UsageError when both name a place
 */
export function storeFlag(
  store: string | undefined,
  cacheDir: string | undefined,
): { url: string; cacheDir?: undefined } | { url?: undefined; cacheDir: string | undefined } {
  if (store === undefined) return { cacheDir };
  if (cacheDir !== undefined) {
    throw new UsageError(
      "--store and --cache-dir both say where the index is kept.",
      "Pass one of them: --store <folder|postgres://…> or --cache-dir <folder>.",
    );
  }
  if (isPostgresUrl(store)) return { url: store };
  return { cacheDir: basename(store) === SQLITE_INDEX_FILE ? dirname(store) : store };
}
