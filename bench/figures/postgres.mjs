// Figure: the index in PostgreSQL (issue 28, the shared server). The scale figure's asks (unchanged, right after an
// edit, right after every file was touched) with the index in a PostgreSQL schema (`--store postgres://…`) instead
// of the SQLite file, on the small and large corpora and the large one ten times over; the server is Debian's,
// started by the bench on 127.0.0.1 (bench/lib/postgres-server.mjs) or the one RAGSYNTH_BENCH_POSTGRES_URL names.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../lib/cli-run.mjs";
import { ensureCorpus } from "../lib/corpus.mjs";
import { NOT_BUILT, ROOT_DIR } from "../lib/libs.mjs";
import { startPostgres } from "../lib/postgres-server.mjs";
import { fmt } from "../lib/report.mjs";
import { MEASURED_HEADERS, measure, measuredRow, QUESTION, repeatedCorpus } from "./scale.mjs";

// pg is ragsynth's optional peer, installed at the root (its tests use it).
const pg = createRequire(join(ROOT_DIR, "package.json"))("pg");

/** The bytes of a schema's tables with their indexes and TOAST. */
async function schemaBytes(url, schema) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    return Number(rows[0].bytes);
  } finally {
    await client.end();
  }
}

async function dropSchema(url, schema) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A schema of its own on the server, as `measure`'s place of the index (sized and dropped by the caller). */
function schemaPlace(url, name) {
  const schema = `bench_${name}_${process.pid}`;
  const store = new URL(url);
  store.searchParams.set("schema", schema);
  return {
    schema,
    place: {
      args: ["--store", store.href],
      location: store.href,
      bytes: () => Number.NaN,
      dispose: () => {},
    },
  };
}

export async function postgresFigure({ quick, runs }) {
  const title = "The index in PostgreSQL: the scale figure's asks with `--store postgres://…`, offline";
  const headers = MEASURED_HEADERS;
  if (!existsSync(BIN)) return { id: "postgres", title, headers, rows: [["all", NOT_BUILT]], notes: [] };
  const server = await startPostgres();
  if ("missing" in server)
    return { id: "postgres", title, headers, rows: [["all", `not measured: ${server.missing}`]], notes: [] };
  const work = mkdtempSync(join(tmpdir(), "bench-postgres-"));
  const results = {};
  try {
    const sizes = [["small", await ensureCorpus("small"), 1]];
    if (!quick) {
      const large = await ensureCorpus("large");
      sizes.push(["large", large, 1], ["large10", large, 10]);
    }
    for (const [name, corpus, copies] of sizes) {
      const folder = repeatedCorpus(corpus, copies, join(work, name));
      const { schema, place } = schemaPlace(server.url, name);
      try {
        const measured = measure(folder, runs, [], place);
        // Its size once the runs are done (the edits' rows in it: a few chunks).
        results[name] = { ...measured, indexBytes: await schemaBytes(server.url, schema) };
      } finally {
        await dropSchema(server.url, schema);
        rmSync(join(work, name), { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    await server.stop();
  }
  const rows = Object.entries(results).map(([name, r]) => measuredRow(`${name}: ${fmt(r.files)} files`, r));
  return {
    id: "postgres",
    title,
    headers,
    rows,
    notes: [
      `Server: ${server.version}, on the same machine, reached over TCP on 127.0.0.1. The same commands, corpora and medians as the scale figure, with \`--store <url>?schema=<its own>\` in place of \`--cache-dir\` (\`-q "${QUESTION}"\`, ${runs} runs of each ask); the index's size is its schema's tables with their indexes and TOAST (\`pg_total_relation_size\`) once the runs are done. Not measured at \`--chunk-size 100\` (10^6 chunks): the scale figure's largest size is the embedded store's target.`,
    ],
    json: results,
  };
}
