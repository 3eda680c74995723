import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INDEX_FILE_NAME } from "../../src/index-store/store-index.js";
import { decodePostings, type PostingsList } from "../../src/store/postings-codec.js";
import { startIndexerChild } from "./indexer-child-process.js";

let dir: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ragsynth-crash-"));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

function startChild(args: string[], onLine: (line: string) => void): Promise<number | null> {
  return startIndexerChild(args, onLine, children);
}

/**
 * A term's df is the sum of its blocks' counts: blocks whose count is not their number of postings, plus postings
 * that point to no chunk, would make it wrong.
 */
function postingMismatches(db: Database.Database): number {
  const keys = new Set(db.prepare("SELECT key FROM chunks").pluck().all() as number[]);
  let mismatches = 0;
  for (const { count, block } of db.prepare("SELECT count, block FROM postings").iterate() as Iterable<{
    count: number;
    block: Buffer;
  }>) {
    const list: PostingsList = { keys: [], frequencies: [], lengths: [] };
    if (!decodePostings(block, list) || list.keys.length !== count) mismatches++;
    mismatches += list.keys.filter((key) => !keys.has(key)).length;
  }
  return mismatches;
}

/** The store's own consistency: stats equal the sums over the chunks, df equals each term's postings. */
function consistency(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    return db.transaction(() => ({
      sources: db.prepare("SELECT count(*) FROM sources").pluck().get() as number,
      chunks: db.prepare("SELECT count(*) FROM chunks").pluck().get() as number,
      sourceChunks: db.prepare("SELECT coalesce(sum(chunk_count), 0) FROM sources").pluck().get() as number,
      statsDocuments: db.prepare("SELECT documents FROM stats").pluck().get() as number,
      statsLength: db.prepare("SELECT total_length FROM stats").pluck().get() as number,
      chunkLength: db.prepare("SELECT coalesce(sum(length), 0) FROM chunks").pluck().get() as number,
      dfMismatches: postingMismatches(db),
      vectorless: db
        .prepare(
          "SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.content_hash = c.content_hash)",
        )
        .pluck()
        .get() as number,
    }))();
  } finally {
    db.close();
  }
}

describe("the SQLite index across processes", () => {
  it("keeps the last good state when indexing is killed with SIGKILL, and the next run goes on from there", async () => {
    let committed = 0;
    const killed = await new Promise<number | null>((resolve) => {
      const exit = startChild(["index", dir, "6", "260"], (line) => {
        if (!line.startsWith("committed ")) return;
        committed = Number(line.slice("committed ".length));
        // Killed right after its first committed group, in the middle of the second document's embedding.
        children[0]?.kill("SIGKILL");
      });
      exit.then(resolve);
    });
    expect(killed).toBeNull();
    expect(committed).toBeGreaterThanOrEqual(1);

    const file = path.join(dir, INDEX_FILE_NAME);
    const after = consistency(file);
    // Whole documents only, never a part of one; at least the one it reported, not all six.
    expect(after.sources).toBeGreaterThanOrEqual(1);
    expect(after.sources).toBeLessThan(6);
    expect(after.chunks).toBe(after.sources * 260);
    expect(after.sourceChunks).toBe(after.chunks);
    expect(after.statsDocuments).toBe(after.chunks);
    expect(after.statsLength).toBe(after.chunkLength);
    expect(after.dfMismatches).toBe(0);
    expect(after.vectorless).toBe(0);

    // The next run keeps what was committed and indexes (and embeds) only the rest.
    const lines: string[] = [];
    expect(await startChild(["index", dir, "6", "260"], (line) => lines.push(line))).toBe(0);
    const stats = JSON.parse(lines.at(-1) ?? "{}");
    expect(stats.sources.unchanged).toHaveLength(after.sources);
    expect(stats.sources.added).toHaveLength(6 - after.sources);
    expect(stats.embedded).toBe((6 - after.sources) * 260);
    expect(stats.chunks).toBe(6 * 260);
    const done = consistency(file);
    expect(done).toMatchObject({
      sources: 6,
      chunks: 1560,
      statsDocuments: 1560,
      dfMismatches: 0,
      vectorless: 0,
    });
  }, 120_000);

  it("serves consistent asks while another process rewrites the index (WAL: no busy error, no torn read)", async () => {
    expect(await startChild(["index", dir, "3", "40"], () => {})).toBe(0);
    let rounds = 0;
    const churn = startChild(["churn", dir, "3", "40"], (line) => {
      if (line.startsWith("round ")) rounds++;
    });
    // The asker runs in its own process until it has seen three committed states of the documents.
    const lines: string[] = [];
    expect(await startChild(["ask", dir], (line) => lines.push(line))).toBe(0);
    children[1]?.kill("SIGKILL");
    await churn;
    const asked = JSON.parse(lines.at(-1) ?? "{}");
    expect(asked.states).toBe(3);
    expect(asked.torn).toBe(0);
    expect(rounds).toBeGreaterThanOrEqual(1);
    expect(consistency(path.join(dir, INDEX_FILE_NAME))).toMatchObject({ chunks: 120, dfMismatches: 0 });
  }, 120_000);
});
