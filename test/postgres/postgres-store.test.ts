// Issue 28, the shared-server half: the index in PostgreSQL (a real server: RAGSYNTH_TEST_POSTGRES_URL, started by
// .ci/run) ranks as SQLite and the in-memory BM25 do, keeps its statistics exact after any edits, serves many
// askers from several processes while one indexes, and survives a kill -9 in the middle of indexing.
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, cp, mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LEXICAL_ANALYZER, lexicalDocumentTerms } from "../../src/analysis/lexical-tokens.js";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { BENCH_CORPUS } from "../../src/eval/bench-questions.test.util.js";
import { openStore } from "../../src/index-store/store-index.js";
import { VectorStoreIndex } from "../../src/index-store/vector-store-index.js";
import { readDocuments } from "../../src/reader/read-documents.js";
import { TextNode } from "../../src/schema/text-node.js";
import type { IndexStore } from "../../src/store/index-store.js";
import { openPostgresStore } from "../../src/store/open-postgres-store.js";
import { PostgresIndexStore } from "../../src/store/postgres-index-store.js";
import { fileEdit, sourceEdit } from "../../src/store/source-edit.test.util.js";
import { createStoreLexicalSearch } from "../../src/store/store-lexical-search.js";
import { copyExampleDocs, runCli } from "../cli/run-cli.js";
import { startIndexerChild } from "../store/indexer-child-process.js";
import { dropSchemas, freshSchemaUrl, postgresConsistency, testPostgresUrl } from "./postgres-test-url.js";

const base = testPostgresUrl();
const schemas: string[] = [];
const children: ChildProcess[] = [];

function schemaUrl(label: string): { url: string; schema: string } {
  const made = freshSchemaUrl(base as string, label);
  schemas.push(made.schema);
  return made;
}

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  if (base) await dropSchemas(base, schemas);
});

function startChild(args: string[], onLine: (line: string) => void): Promise<number | null> {
  return startIndexerChild(args, onLine, children);
}

/** `got` ranks as `expected`: the same ids at each rank, or, where they differ, the same score (a tie). */
function expectSameRanking(
  got: readonly { id: string; score: number }[],
  expected: readonly { id: string; score: number }[],
  question: string,
): void {
  expect(got.length, question).toBe(expected.length);
  for (const [rank, hit] of got.entries()) {
    const other = expected[rank] as { id: string; score: number };
    expect(hit.score, `${question} #${rank + 1}`).toBeCloseTo(other.score, 9);
    if (hit.id !== other.id)
      expect(Math.abs(hit.score - other.score), `${question}: a tie`).toBeLessThan(1e-9);
  }
}

describe.skipIf(!base)("the index in PostgreSQL", () => {
  describe("ranks as SQLite and the in-memory BM25 on the bench's quality questions", () => {
    let dir: string;
    let memory: VectorStoreIndex;
    let sqlite: VectorStoreIndex;
    let postgres: VectorStoreIndex;
    let postgresUrl: string;
    let questions: string[];

    beforeAll(async () => {
      if (!existsSync(BENCH_CORPUS)) {
        if (process.env.CI === "true")
          throw new Error(`CI=true but the bench corpus ${BENCH_CORPUS} is missing`);
        return;
      }
      const raw = (await import("../../bench/quality/questions.json", { with: { type: "json" } }))
        .default as {
        question: string;
      }[];
      questions = raw.map((entry) => entry.question);
      dir = await mkdtemp(path.join(tmpdir(), "ragsynth-pg-ranking-"));
      const { documents } = await readDocuments([BENCH_CORPUS], {});
      memory = await VectorStoreIndex.fromDocuments(documents);
      sqlite = await VectorStoreIndex.fromDocumentsCached(documents, { cacheDir: dir });
      postgresUrl = schemaUrl("ranking").url;
      postgres = await VectorStoreIndex.fromDocumentsCached(documents, { store: postgresUrl });
    }, 300_000);

    afterAll(async () => {
      await postgres?.close();
      await sqlite?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("gives the same top 4 chunks with the same BM25 scores (ties aside) on the three", async () => {
      if (!questions) return expect(process.env.CI).not.toBe("true");
      let compared = 0;
      const pgStore = await openPostgresStore(postgresUrl);
      const sqliteStore = openStore(dir);
      try {
        const onPostgres = createStoreLexicalSearch(pgStore);
        const onSqlite = createStoreLexicalSearch(sqliteStore);
        for (const question of questions) {
          const expected = memory.lexicalIndex.search(question, { topK: 4 });
          expectSameRanking(await onSqlite.search(question, { topK: 4 }), expected, question);
          expectSameRanking(await onPostgres.search(question, { topK: 4 }), expected, question);
          if (expected.length === 4) compared++;
        }
        expect(await pgStore.statistics()).toEqual(await sqliteStore.statistics());
      } finally {
        await pgStore.close();
        await sqliteStore.close();
      }
      expect(compared).toBeGreaterThan(questions.length / 2);
    });

    it("gives the same top 4 through the retriever (path and same-file evidence on top of BM25)", async () => {
      if (!questions) return expect(process.env.CI).not.toBe("true");
      for (const question of questions) {
        const expected = await memory.asRetriever({ similarityTopK: 4 }).retrieve({ query: question });
        const got = await postgres.asRetriever({ similarityTopK: 4 }).retrieve({ query: question });
        expectSameRanking(
          got.map(({ node, score }) => ({ id: node.id, score: score ?? 0 })),
          expected.map(({ node, score }) => ({ id: node.id, score: score ?? 0 })),
          question,
        );
      }
    });
  });

  it("keeps the statistics, document frequencies and postings exact after any sequence of edits (against a rebuild)", async () => {
    const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 12 }).map((w) => w.join(" "));
    const step = fc.oneof(
      fc.record({
        kind: fc.constant("write" as const),
        id: fc.constantFrom("a.md", "b.md", "c.md"),
        texts: fc.array(text, { minLength: 0, maxLength: 4 }),
      }),
      fc.record({ kind: fc.constant("remove" as const), id: fc.constantFrom("a.md", "b.md", "c.md") }),
    );
    const edited = await openPostgresStore(schemaUrl("edits").url);
    const rebuilt = await openPostgresStore(schemaUrl("rebuilt").url);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
          const documents = new Map<string, string[]>();
          await edited.reset(META);
          for (const action of steps) {
            if (action.kind === "write") {
              documents.set(action.id, action.texts);
              await edited.write([sourceEdit(action.id, action.texts)]);
            } else {
              documents.delete(action.id);
              await edited.write([], [action.id]);
            }
          }
          await rebuilt.reset(META);
          await rebuilt.write([...documents].map(([id, texts]) => sourceEdit(id, texts)));
          expect(await contentOf(edited)).toEqual(await contentOf(rebuilt));
          const consistency = await postgresConsistency(base as string, schemaOf(edited));
          expect(consistency.dfMismatches).toBe(0);
          expect(consistency.orphanTerms).toBe(0);
          expect(consistency.statsLength).toBe(consistency.chunkLength);
          expect(consistency.vectorless).toBe(0);
        }),
        { numRuns: 25 },
      );
    } finally {
      await edited.close();
      await rebuilt.close();
    }
  }, 120_000);

  it("gives an edited document its old position: no other source row is written", async () => {
    const { url, schema } = schemaUrl("positions");
    const store = await openPostgresStore(url);
    const client = new pg.Client({ connectionString: base as string });
    await client.connect();
    const rows = async () =>
      (await client.query(`SELECT id, position FROM "${schema}".sources ORDER BY id`)).rows;
    try {
      await store.reset(META);
      await store.write(["a.md", "b.md", "c.md"].map((id) => sourceEdit(id, [`zebra ${id}`])));
      const before = await rows();
      await store.write([sourceEdit("a.md", ["zebra a.md, edited", "a second chunk"])]);
      expect(await rows()).toEqual(before);
      expect((await store.sources()).map((source) => [source.id, source.chunkCount])).toEqual([
        ["a.md", 2],
        ["b.md", 1],
        ["c.md", 1],
      ]);
      await store.write([sourceEdit("0.md", ["zebra new"])], ["b.md"]);
      expect((await store.sources()).map((source) => source.id)).toEqual(["a.md", "c.md", "0.md"]);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("keeps each file's bytes hash, records a new size and time without touching chunks, and migrates a layout 1 schema", async () => {
    const { url, schema } = schemaUrl("fingerprints");
    let store = await openPostgresStore(url);
    const client = new pg.Client({ connectionString: base as string });
    await client.connect();
    const chunkRows = async () =>
      (await client.query(`SELECT key, node_id, node FROM "${schema}".chunks ORDER BY key`)).rows;
    try {
      await store.reset(META);
      const a = fileEdit("a.md", ["zebra stripe", "retry timeout"], {
        size: 10,
        lastModifiedAt: "2026-01-01T00:00:00.000Z",
      });
      Object.assign(a.source as object, { bytesHash: "ab12" });
      await store.write([a, sourceEdit("b.md", ["zebra queue"])]);
      const [first, second] = await store.sources();
      expect(first).toMatchObject({ id: "a.md", size: 10, bytesHash: "ab12" });
      expect(second).not.toHaveProperty("bytesHash");
      const chunks = await chunkRows();
      const statistics = await store.statistics();
      await store.setFingerprints([
        { id: "a.md", size: 12, lastModifiedAt: "2026-02-02T00:00:00.000Z" },
        { id: "gone.md", size: 1 },
      ]);
      expect((await store.sources())[0]).toEqual(
        expect.objectContaining({
          id: "a.md",
          size: 12,
          lastModifiedAt: "2026-02-02T00:00:00.000Z",
          bytesHash: "ab12",
        }),
      );
      expect((await store.sources()).map((source) => source.id)).toEqual(["a.md", "b.md"]);
      expect(await chunkRows()).toEqual(chunks);
      expect(await store.statistics()).toEqual(statistics);
      // Its chunks read with the file's new size and time, from its sources row.
      expect((await store.chunkByNodeId("a.md#1"))?.node.metadata).toEqual({
        file_path: "a.md",
        file_size: 12,
        last_modified_at: "2026-02-02T00:00:00.000Z",
      });
      await store.close();

      // A layout 1 schema (no bytes_hash, the postings' key without tf and length): migrated in place when opened,
      // its rows and chunks kept.
      const postingsKey = async () =>
        (
          await client.query(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'postings_pkey'",
            [schema],
          )
        ).rows[0]?.indexdef as string;
      expect(await postingsKey()).toMatch(/\(term_id, chunk\) INCLUDE \(tf, length\)$/);
      await client.query(`ALTER TABLE "${schema}".sources DROP COLUMN bytes_hash`);
      await client.query(
        `ALTER TABLE "${schema}".postings DROP CONSTRAINT postings_pkey, ADD PRIMARY KEY (term_id, chunk)`,
      );
      expect(await postingsKey()).toMatch(/\(term_id, chunk\)$/);
      await client.query(`UPDATE "${schema}".meta SET value = '1' WHERE key = 'layout'`);
      store = await openPostgresStore(url);
      expect((await store.sources()).map((source) => [source.id, source.size, source.bytesHash])).toEqual([
        ["a.md", 12, undefined],
        ["b.md", undefined, undefined],
      ]);
      expect(await chunkRows()).toEqual(chunks);
      const layout = await client.query(`SELECT value FROM "${schema}".meta WHERE key = 'layout'`);
      expect(layout.rows[0]?.value).toBe("2");
      expect(await postingsKey()).toMatch(/\(term_id, chunk\) INCLUDE \(tf, length\)$/);
      expect(await store.statistics()).toEqual(statistics);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it("lets two machines' copies of a folder (other times, the same bytes) ask one store without reading the files on every turn", async () => {
    const { url, schema } = schemaUrl("machines");
    const { dir, docs, cleanup } = await copyExampleDocs();
    const client = new pg.Client({ connectionString: base as string });
    await client.connect();
    const rows = async () =>
      (
        await client.query(
          `SELECT id, size, last_modified_at, bytes_hash FROM "${schema}".sources ORDER BY id`,
        )
      ).rows;
    try {
      // Two machines: each its checkout (the same bytes, other times) and its own user cache folder.
      const machines = ["machine-a", "machine-b"].map((name, index) => ({
        cwd: path.join(dir, name),
        cache: path.join(dir, `${name}-cache`),
        when: new Date(Date.UTC(2026, 0, 1 + index)),
      }));
      for (const machine of machines) {
        await mkdir(machine.cwd);
        await cp(docs, path.join(machine.cwd, "docs"), { recursive: true });
        for (const name of await readdir(path.join(machine.cwd, "docs")))
          await utimes(path.join(machine.cwd, "docs", name), machine.when, machine.when);
      }
      const ask = async (machine: (typeof machines)[number], { inside = false } = {}) => {
        const run = await runCli(
          [
            "ask",
            inside ? "." : "docs",
            "--store",
            url,
            "-q",
            "What is the default response mode?",
            "--json",
          ],
          {
            cwd: inside ? path.join(machine.cwd, "docs") : machine.cwd,
            env: { XDG_CACHE_HOME: machine.cache },
          },
        );
        expect(run.code, run.stderr).toBe(0);
        return (JSON.parse(run.stdout) as { index: { sources: Record<string, string[]> } }).index.sources;
      };
      const [a, b] = machines as [(typeof machines)[number], (typeof machines)[number]];
      const files = (await ask(a)).added as string[];
      expect(files.length).toBeGreaterThan(3);
      // Machine B finds every file by its bytes (reads them once), and keeps its own times of them.
      expect(await ask(b)).toEqual({ added: [], changed: [], unchanged: files, removed: [] });
      expect(await ask(a)).toEqual({ added: [], changed: [], unchanged: files, removed: [] });
      // From here on, neither machine finds a file to read: no ask writes the store's rows again.
      const settled = await rows();
      expect(settled.every((row) => /^[0-9a-f]{64}$/.test(row.bytes_hash))).toBe(true);
      for (const machine of [b, a, b]) {
        expect(await ask(machine)).toEqual({ added: [], changed: [], unchanged: files, removed: [] });
        expect(await rows()).toEqual(settled);
      }
      // Asked from inside its folder (`ask .`), machine B names the files as the store does, and uses what it
      // learned of them from its parent folder (no second memory of the same files, no file read).
      const memories = () => readdir(path.join(b.cache, "ragsynth", "stores"));
      const learned = await memories();
      expect(learned).toHaveLength(1);
      expect(await ask(b, { inside: true })).toEqual({
        added: [],
        changed: [],
        unchanged: files,
        removed: [],
      });
      expect(await rows()).toEqual(settled);
      expect(await memories()).toEqual(learned);
      // An asker that does not refresh writes nothing, even with an edit of its own: the store answers as it is.
      await appendFile(path.join(b.cwd, "docs", "overview.md"), "\nA local edit, not seen.\n");
      const asIs = await runCli(
        ["ask", "docs", "--store", url, "--no-refresh", "-q", "What is the default response mode?", "--json"],
        { cwd: b.cwd, env: { XDG_CACHE_HOME: b.cache } },
      );
      expect(asIs.code, asIs.stderr).toBe(0);
      expect(JSON.parse(asIs.stdout).index.sources).toEqual({
        added: [],
        changed: [],
        unchanged: files,
        removed: [],
      });
      expect(await rows()).toEqual(settled);
      // An edit on machine B is read and written, and machine A then finds its own copy changed.
      await writeFile(path.join(b.cwd, "docs", "overview.md"), "# Overview\n\nEdited on machine B.\n");
      expect((await ask(b)).changed).toEqual(["docs/overview.md"]);
      expect((await ask(a)).changed).toEqual(["docs/overview.md"]);
    } finally {
      await client.end();
      await cleanup();
    }
  }, 120_000);

  it("answers a BM25 query without reading every chunk, also with the offline embedder's corpus-weighted queries", async () => {
    const { url } = schemaUrl("lexical_reads");
    const documents = [
      "zebra stripes and flies",
      "retry queues hold failed jobs",
      "compact packs chunks",
    ].map((text, index) => new TextNode({ id: `doc-${index}.md`, text }));
    // The CLI's offline embedder: it weights queries by the index's documents.
    const embedModel = new HashingEmbedder({ applyIdf: "query" });
    await (await VectorStoreIndex.fromDocumentsCached(documents, { store: url, embedModel })).close();
    const index = await VectorStoreIndex.load(url, { embedModel });
    const fullReads = vi.spyOn(PostgresIndexStore.prototype, "allChunks");
    try {
      const lexical = await index.asRetriever({ similarityTopK: 1 }).retrieve({ query: "failed jobs" });
      expect(lexical.map(({ node }) => node.text)).toEqual(["retry queues hold failed jobs"]);
      expect(fullReads).not.toHaveBeenCalled();
      // Dense queries weighted by the documents (the query IDF) read them once.
      const dense = await index
        .asRetriever({ similarityTopK: 1, retrievalMode: "dense" })
        .retrieve({ query: "zebra" });
      expect(dense.map(({ node }) => node.text)).toEqual(["zebra stripes and flies"]);
      expect(fullReads).toHaveBeenCalled();
    } finally {
      fullReads.mockRestore();
      await index.close();
    }
  });

  it("settles the tables after a write of many chunks (VACUUM ANALYZE), not after a small edit", async () => {
    const { url, schema } = schemaUrl("settle");
    const client = new pg.Client({ connectionString: base as string });
    await client.connect();
    const vacuumed = async () =>
      (
        await client.query(
          "SELECT relname, vacuum_count FROM pg_stat_user_tables WHERE schemaname = $1 AND relname IN ('postings', 'terms') ORDER BY relname",
          [schema],
        )
      ).rows.map((row) => [row.relname, Number(row.vacuum_count)]);
    const settle = vi.spyOn(PostgresIndexStore.prototype, "settle");
    try {
      const documents = Array.from(
        { length: 1_200 },
        (_, index) =>
          new TextNode({ id: `doc-${index}.md`, text: `zebra ${index} stripes and retry ${index % 7}` }),
      );
      await (await VectorStoreIndex.fromDocumentsCached(documents, { store: url })).close();
      expect(settle).toHaveBeenCalledTimes(1);
      // The statistics collector reports asynchronously: wait for the VACUUM to show.
      for (let wait = 0; wait < 50 && (await vacuumed()).some(([, count]) => count === 0); wait++)
        await new Promise((done) => setTimeout(done, 100));
      expect(await vacuumed()).toEqual([
        ["postings", 1],
        ["terms", 1],
      ]);
      const edited = documents.map((document, index) =>
        index === 0 ? new TextNode({ id: document.id, text: "zebra edited" }) : document,
      );
      await (await VectorStoreIndex.fromDocumentsCached(edited, { store: url })).close();
      expect(settle).toHaveBeenCalledTimes(1);
    } finally {
      settle.mockRestore();
      await client.end();
    }
  }, 120_000);

  it("ranks equal BM25 scores by insertion order, the same on every query", async () => {
    const { url } = schemaUrl("ties");
    const store = await openPostgresStore(url);
    try {
      await store.reset(META);
      // Chunks of the same words in other orders: equal scores, whose terms the engine may add in any order.
      const words = ["zebra", "stripe", "retry", "queue", "timeout", "compact", "budget"];
      const edits = Array.from({ length: 60 }, (_, index) =>
        sourceEdit(`doc-${index}.md`, [[...words.slice(index % 7), ...words.slice(0, index % 7)].join(" ")]),
      );
      await store.write(edits);
      const keys = async () =>
        (await store.lexicalTopK?.(words, { topK: 4, k1: 1.2, b: 0.75 }))?.map((hit) => hit.key);
      const first = await keys();
      expect(first).toEqual([...(first ?? [])].sort((left, right) => left - right));
      for (let run = 0; run < 5; run++) expect(await keys()).toEqual(first);
      const search = createStoreLexicalSearch(store);
      const expected = (await search.search(words.join(" "), { topK: 4 })).map((hit) => hit.id);
      expect(expected).toEqual(["doc-0.md#0", "doc-1.md#0", "doc-2.md#0", "doc-3.md#0"]);
    } finally {
      await store.close();
    }
  });

  it("moves a node id another document of the same write held, keeping the statistics exact", async () => {
    const moved = await openPostgresStore(schemaUrl("moved").url);
    const rebuilt = await openPostgresStore(schemaUrl("moved_rebuilt").url);
    try {
      const first = sourceEdit("a.md", ["alpha beta", "gamma"]);
      const second = sourceEdit("b.md", ["delta alpha"]);
      // b.md's chunk takes the id of a.md's first chunk: the later one wins, as on SQLite.
      const taken = {
        ...second,
        chunks: second.chunks.map((chunk) => ({
          ...chunk,
          node: new TextNode({ id: "a.md#0", text: "delta alpha" }),
        })),
      };
      await moved.reset(META);
      await moved.write([first, taken]);
      await rebuilt.reset(META);
      await rebuilt.write([{ ...first, chunks: first.chunks.slice(1) }, taken]);
      const content = await contentOf(moved);
      expect(content.statistics).toEqual(await rebuilt.statistics());
      expect(content.frequencies).toEqual((await contentOf(rebuilt)).frequencies);
      expect(content.chunks).toEqual(["a.md#0", "a.md#1"]);
      const consistency = await postgresConsistency(base as string, schemaOf(moved));
      expect(consistency).toMatchObject({
        dfMismatches: 0,
        orphanTerms: 0,
        statsLength: consistency.chunkLength,
      });
    } finally {
      await moved.close();
      await rebuilt.close();
    }
  });

  it("serves 8 askers from 2 processes while one indexer rewrites the index: no error, no torn read", async () => {
    const { url, schema } = schemaUrl("concurrent");
    expect(await startChild(["index", url, "3", "40"], () => {})).toBe(0);
    let rounds = 0;
    const churn = startChild(["churn", url, "3", "40"], (line) => {
      if (line.startsWith("round ")) rounds++;
    });
    const outputs: string[][] = [[], []];
    const codes = await Promise.all(
      outputs.map((lines) => startChild(["ask", url, "4"], (line) => lines.push(line))),
    );
    children.find((child) => child.exitCode === null && child.spawnargs.includes("churn"))?.kill("SIGKILL");
    await churn;
    expect(codes).toEqual([0, 0]);
    for (const lines of outputs) {
      const asked = JSON.parse(lines.at(-1) ?? "{}");
      expect(asked.torn).toBe(0);
      expect(asked.states).toBe(3);
      expect(asked.asks).toBeGreaterThan(0);
    }
    expect(rounds).toBeGreaterThanOrEqual(1);
    expect(await postgresConsistency(base as string, schema)).toMatchObject({ chunks: 120, dfMismatches: 0 });
  }, 180_000);

  it("keeps the last good state when indexing is killed with SIGKILL, and the next run goes on from there", async () => {
    const { url, schema } = schemaUrl("killed");
    let committed = 0;
    let killer: ChildProcess | undefined;
    const killed = await new Promise<number | null>((resolve) => {
      const exit = startChild(["index", url, "6", "260"], (line) => {
        if (!line.startsWith("committed ")) return;
        committed = Number(line.slice("committed ".length));
        killer?.kill("SIGKILL");
      });
      killer = children.at(-1);
      exit.then(resolve);
    });
    expect(killed).toBeNull();
    expect(committed).toBeGreaterThanOrEqual(1);
    const after = await postgresConsistency(base as string, schema);
    expect(after.sources).toBeGreaterThanOrEqual(1);
    expect(after.sources).toBeLessThan(6);
    expect(after.chunks).toBe(after.sources * 260);
    expect(after).toMatchObject({
      sourceChunks: after.chunks,
      statsDocuments: after.chunks,
      statsLength: after.chunkLength,
      dfMismatches: 0,
      vectorless: 0,
    });
    const lines: string[] = [];
    expect(await startChild(["index", url, "6", "260"], (line) => lines.push(line))).toBe(0);
    const stats = JSON.parse(lines.at(-1) ?? "{}");
    expect(stats.sources.unchanged).toHaveLength(after.sources);
    expect(stats.sources.added).toHaveLength(6 - after.sources);
    expect(stats.embedded).toBe((6 - after.sources) * 260);
    expect(await postgresConsistency(base as string, schema)).toMatchObject({
      sources: 6,
      chunks: 1560,
      statsDocuments: 1560,
      dfMismatches: 0,
      vectorless: 0,
    });
  }, 180_000);
});

const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
const META = { embedderId: "test", storeVectors: true, analyzer: LEXICAL_ANALYZER, splitter: "test" };

/** What BM25 reads, by node id and term (keys differ between stores, content must not). */
async function contentOf(store: IndexStore) {
  return store.read(async () => {
    const chunks: { id: string; key: number }[] = [];
    for await (const batch of store.allChunks())
      chunks.push(...batch.map((c) => ({ id: c.node.id, key: c.key })));
    const idOf = new Map(chunks.map((chunk) => [chunk.key, chunk.id]));
    const words = [...new Set(lexicalDocumentTerms(WORDS.join(" ")))];
    const postings: Record<string, string[]> = {};
    for (const word of words) {
      const found = await store.postings(word);
      if (found) {
        postings[word] = Array.from(found.keys, (key, index) =>
          [idOf.get(key), found.frequencies[index], found.lengths[index]].join(":"),
        ).sort();
      }
    }
    return {
      statistics: await store.statistics(),
      frequencies: Object.fromEntries(await store.documentFrequencies(words)),
      postings,
      sources: (await store.sources()).map(({ id, chunkCount }) => ({ id, chunkCount })).sort(byId),
      chunks: chunks.map((chunk) => chunk.id).sort(),
    };
  });
}

const byId = (left: { id: string }, right: { id: string }) => left.id.localeCompare(right.id);

function schemaOf(store: IndexStore): string {
  return new URL(store.location.replace("[REDACTED]", "x")).searchParams.get("schema") as string;
}
