// Dense search on PostgreSQL: pgvector's SQL (the vector column, `<=>` ordering) run in-process on PGlite with its
// vector extension (Debian 12 packages no pgvector for the CI's postgresql-15), and the fallback where the extension
// is missing: said clearly (`pgvector.reason`), and the vectors scanned in JS give the same top k.
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite/vector";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEXICAL_ANALYZER, lexicalDocumentTerms } from "../analysis/lexical-tokens.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { createStoreDenseRetriever } from "../index-store/store-dense-retriever.js";
import { TextNode } from "../schema/text-node.js";
import type { SourceEdit } from "./index-store.js";
import { PostgresIndexStore, type PostgresPool } from "./postgres-index-store.js";

// One session with the vector extension loaded, one without (CREATE EXTENSION vector fails there).
let withVector: PGlite;
let without: PGlite;
beforeAll(async () => {
  [withVector, without] = await Promise.all([PGlite.create({ extensions: { vector } }), PGlite.create()]);
}, 120_000);
afterAll(async () => {
  await withVector?.close();
  await without?.close();
});

/** A PostgresPool over one PGlite session: connections are handed out one at a time (it is one session). */
function pgliteStore(db: PGlite, schema: string): Promise<PostgresIndexStore> {
  let turn = Promise.resolve();
  // Like pg, a query without parameters may hold several statements (the schema's DDL): PGlite runs those by exec.
  const query = async (text: string, values?: unknown[]) => {
    if (values === undefined) {
      const results = await db.exec(text);
      return { rows: (results.at(-1)?.rows ?? []) as Record<string, unknown>[] };
    }
    const result = await db.query<Record<string, unknown>>(text, values as never[]);
    return { rows: result.rows };
  };
  const pool: PostgresPool = {
    query,
    async connect() {
      let release = () => {};
      const previous = turn;
      turn = new Promise<void>((done) => {
        release = done;
      });
      await previous;
      return { query, release: () => release() };
    },
    end: async () => {},
  };
  return PostgresIndexStore.open(pool, { schema, location: `pglite:${schema}` });
}

const embedder = new HashingEmbedder({ dimensions: 64 });
const TEXTS = [
  "the compact mode packs chunks into as few calls as fit",
  "refine walks the chunks one by one and improves the answer",
  "tree summarize builds a tree of summaries up to the root",
  "streaming sends tokens as they are generated",
  "the token budget counts prompt and output tokens exactly",
  "accumulate answers each chunk on its own and joins them",
  "a hashing embedder needs no network and no model weights",
  "BM25 ranks chunks by the query terms they hold",
];

async function edits(): Promise<SourceEdit[]> {
  const vectors = await embedder.getTextEmbeddings(TEXTS);
  return [
    {
      source: { id: "modes.md", contentHash: "modes" },
      chunks: TEXTS.map((text, index) => ({
        node: new TextNode({ id: `modes.md#${index}`, text }),
        contentHash: `chunk-${index}`,
        terms: lexicalDocumentTerms(text),
        embedding: Float32Array.from(vectors[index] as number[]),
        holdsImage: false,
      })),
    },
  ];
}

/** The dense top k a store gives through the retriever, as node ids with scores. */
async function denseTop(store: PostgresIndexStore, query: string, k: number) {
  const retriever = createStoreDenseRetriever(store, embedder, { similarityTopK: k });
  return (await retriever.retrieve({ query })).map(({ node, score }) => ({ id: node.id, score: score ?? 0 }));
}

describe("dense search on PostgreSQL", () => {
  it("orders by pgvector's cosine distance in SQL where the extension is there, as the exact JS scan does", async () => {
    const sql = await pgliteStore(withVector, "dense");
    const scan = await pgliteStore(without, "dense");
    expect(sql.pgvector).toEqual({ available: true });
    expect(scan.pgvector.available).toBe(false);
    const meta = {
      embedderId: embedder.id,
      storeVectors: true,
      analyzer: LEXICAL_ANALYZER,
      splitter: "test",
    };
    for (const store of [sql, scan]) {
      await store.reset(meta);
      await store.write(await edits());
    }
    // The SQL path answers (not the scan): the vector column holds every vector.
    const stored = await withVector.query<{ n: number }>(
      'SELECT count(embedding_vector)::int AS n FROM "dense".vectors',
    );
    expect(stored.rows[0]?.n).toBe(TEXTS.length);
    const query = await embedder.getQueryEmbedding("how does refine improve the answer");
    expect(await sql.denseTopK(Float32Array.from(query), 3)).toHaveLength(3);
    expect(await scan.denseTopK(Float32Array.from(query), 3)).toBeUndefined();
    for (const question of [
      "how does refine improve the answer",
      "tokens streamed as generated",
      "no network",
    ]) {
      const fromSql = await denseTop(sql, question, 4);
      const fromScan = await denseTop(scan, question, 4);
      expect(fromSql).toHaveLength(4);
      expect(fromSql[0]?.score).toBeGreaterThan(0);
      // The same chunks at each rank, or (where they differ) the same score: a tie, ordered by key in SQL.
      for (const [rank, hit] of fromSql.entries()) {
        const other = fromScan[rank] as { id: string; score: number };
        expect(hit.score, `${question} #${rank + 1}`).toBeCloseTo(other.score, 5);
        if (hit.id !== other.id) expect(Math.abs(hit.score - other.score)).toBeLessThan(1e-6);
      }
    }
  }, 60_000);

  it("says why pgvector is not used when the extension cannot be created", async () => {
    const store = await pgliteStore(without, "plain");
    expect(store.pgvector.available).toBe(false);
    expect(store.pgvector.available ? "" : store.pgvector.reason).toMatch(/vector/);
    expect(store.notice).toMatch(/pgvector.*not.*(installed|available).*exact/i);
  }, 60_000);
});
