import { createRequire } from "node:module";
import type * as Pg from "pg";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { hideUrlPasswords, scrubSecrets } from "../errors/scrub-secrets.js";
import { PostgresIndexStore, type PostgresPool } from "./postgres-index-store.js";
import { DEFAULT_POSTGRES_SCHEMA, POSTGRES_SCHEMA_NAME } from "./postgres-schema.js";

// pg is an optional peer (CommonJS): required on first use, so users without PostgreSQL never load it.
const require = createRequire(import.meta.url);

/** Whether `location` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than a folder. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Whether `location`, not a PostgreSQL URL, still reads as a URL (a scheme of two characters or more, then a colon:
 * `postgresql:/host` with one slash, `pg://host`, `mysql://…`): taken as a folder it would quietly make a local
 * index with that name. A Windows drive (`C:\\…`) has a one-letter scheme and is a folder.
 */
export function isOtherUrl(location: string): boolean {
  return !isPostgresUrl(location) && /^[a-z][a-z0-9+.-]+:/i.test(location);
}

/** How to mend a location {@link isOtherUrl} refused: the CLI's hint and the library's. */
export const OTHER_URL_HINT =
  "Write a PostgreSQL URL as postgres://user@host:5432/db?schema=name (two slashes after the colon); start a folder whose name holds a colon with ./";

/** A PostgreSQL index location: the connection string for `pg`, the schema the index lives in, and what to show. */
export interface PostgresLocation {
  connectionString: string;
  schema: string;
  /** The URL with its password replaced by `[REDACTED]`: the only form that is printed. */
  location: string;
  password: string | undefined;
}

/**
 * Reads a store URL: `postgres://user:password@host:5432/database?schema=name`. `schema` (default `ragsynth`)
 * names the index: each schema holds one index, so one database can hold many.
 * @throws InvalidArgumentError for a URL that does not parse or a schema that is not a plain lower-case identifier
 */
export function parsePostgresUrl(url: string): PostgresLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new InvalidArgumentError({
      parameter: "store",
      value: hideUrlPasswords(url),
      expected: "be a PostgreSQL URL such as postgres://user@host:5432/database?schema=ragsynth",
      cause: error,
    });
  }
  const schema = parsed.searchParams.get("schema") ?? DEFAULT_POSTGRES_SCHEMA;
  if (!POSTGRES_SCHEMA_NAME.test(schema)) {
    throw new InvalidArgumentError({
      parameter: "store",
      value: hideUrlPasswords(url),
      expected: `name its schema (?schema=) with lower-case letters, digits and _ (not starting with a digit, at most 63), got "${schema}"`,
    });
  }
  parsed.searchParams.delete("schema");
  const password = parsed.password === "" ? undefined : decodeURIComponent(parsed.password);
  const shown = new URL(parsed.href);
  if (shown.password !== "") shown.password = "[REDACTED]";
  shown.searchParams.set("schema", schema);
  return {
    connectionString: parsed.href,
    schema,
    location: shown.href.replace("%5BREDACTED%5D", "[REDACTED]"),
    password,
  };
}

/**
 * Opens (creating its schema and tables when missing) the index at a PostgreSQL URL: a pool of up to `maxConnections`
 * connections through `pg`, loaded on first use.
 * @throws RagsynthError `missing_peer_dependency` when `pg` is not installed; `index_load` when the server cannot be
 *   reached or refuses (the message never holds the password); InvalidArgumentError for a malformed URL
 */
export async function openPostgresStore(
  url: string,
  { maxConnections = 10 }: { maxConnections?: number } = {},
): Promise<PostgresIndexStore> {
  const target = parsePostgresUrl(url);
  let pg: typeof Pg;
  try {
    pg = require("pg") as typeof Pg;
  } catch (error) {
    throw new RagsynthError({
      code: "missing_peer_dependency",
      message: `A PostgreSQL index (${target.location}) needs the package pg, which is not installed. Run \`npm i pg\`, or leave out the postgres:// store to use the embedded SQLite index.`,
      cause: error,
    });
  }
  // Idle connections do not hold the process open (a CLI run ends when its work does, closed or not).
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    max: maxConnections,
    allowExitOnIdle: true,
  });
  // An idle connection the server drops (a restart) is an event, not a crash: the pool replaces it.
  pool.on("error", () => {});
  try {
    return await PostgresIndexStore.open(pool as unknown as PostgresPool, target);
  } catch (error) {
    await pool.end().catch(() => {});
    throw postgresError(target, error);
  }
}

/** A failure of a PostgreSQL index as an `index_load` error that names the redacted URL and hides the password. */
export function postgresError(target: PostgresLocation, error: unknown): RagsynthError {
  if (RagsynthError.isInstance(error)) return error;
  const message = scrubSecrets(String((error as Error)?.message ?? error), [target.password]);
  return new RagsynthError({
    code: "index_load",
    message: `Could not open the PostgreSQL index ${target.location}: ${message}. Check the URL, that the server runs and accepts this user, and that the user may create the schema "${target.schema}".`,
    cause: error,
  });
}
