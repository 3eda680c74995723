import { basename, dirname } from "node:path";
import { hideUrlPasswords } from "../errors/scrub-secrets.js";
import { isOtherUrl, isPostgresUrl, OTHER_URL_HINT } from "../store/open-postgres-store.js";
import { SQLITE_INDEX_FILE } from "../store/open-sqlite-store.js";
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
  if (cacheDir !== undefined && isPostgresUrl(cacheDir)) {
    throw new UsageError(
      `--cache-dir takes a folder, got the PostgreSQL URL ${hideUrlPasswords(cacheDir)}.`,
      "Pass a PostgreSQL URL with --store (or RAGSYNTH_STORE).",
    );
  }
  for (const [flag, value] of [
    ["--store (or RAGSYNTH_STORE)", store],
    ["--cache-dir", cacheDir],
  ] as const) {
    if (value !== undefined && isOtherUrl(value)) {
      throw new UsageError(
        `${flag} takes a folder${flag === "--cache-dir" ? "" : " or a PostgreSQL URL"}, got ${hideUrlPasswords(value)}, which reads as a URL of another kind (a local folder of that name would be made).`,
        OTHER_URL_HINT,
      );
    }
  }
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

/**
 * `--store` (else `RAGSYNTH_STORE`) as the option table reads it. `batch` and `worker` take only a PostgreSQL URL
 * (a folder goes through `--index` / `--index-root`, under their checks); a `RAGSYNTH_STORE` naming a folder is for
 * `ask`, `plan`, `index` and `eval`, so those two pass it over.
 * @throws UsageError when `batch --store` or `worker --store` is not a PostgreSQL URL
 */
export function readStore(
  raw: string | undefined,
  flag: string,
  command: string,
  fromEnv: boolean,
): string | undefined {
  if (raw === undefined || (command !== "batch" && command !== "worker") || isPostgresUrl(raw)) return raw;
  if (fromEnv) return undefined;
  throw new UsageError(
    `${command} ${flag} takes a PostgreSQL URL, got ${hideUrlPasswords(raw)}.`,
    command === "batch"
      ? "Pass the folder of a SQLite index with --index instead."
      : "Name the folders of SQLite indexes with --index-root instead.",
  );
}
