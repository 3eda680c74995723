import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LEXICAL_ANALYZER, lexicalTokens } from "../analysis/lexical-tokens.js";
import { openSqliteStore } from "./open-sqlite-store.js";
import { sourceEdit } from "./source-edit.test.util.js";
import { snapshot } from "./sqlite-snapshot.test.util.js";
import { useTempDirs } from "./temp-dir.test.util.js";

const META = { embedderId: "test", storeVectors: true, analyzer: LEXICAL_ANALYZER, splitter: "test" };
const tempDir = useTempDirs("store");

const WORDS = [
  "zebra",
  "stripe",
  "retry",
  "timeout",
  "queue",
  "the",
  "index",
  "v2.9.1",
  "keepAlive",
  "# Title",
];
const chunkText = fc
  .array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 6 })
  .map((words) => words.join(" "));
const operation = fc.oneof(
  fc.record({
    kind: fc.constant("put" as const),
    id: fc.constantFrom("a.md", "b.md", "c.md", "d.md"),
    texts: fc.array(chunkText, { minLength: 0, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant("remove" as const), id: fc.constantFrom("a.md", "b.md", "c.md", "d.md") }),
);

describe("SqliteIndexStore", () => {
  it("keeps the statistics, document frequencies, postings (whole and read at keys), vectors and their codes exact after any sequence of edits (against a rebuild)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(operation, { minLength: 1, maxLength: 3 }), { maxLength: 12 }),
        (batches) => {
          const dir = tempDir();
          // Blocks of 2 postings: edits cross block boundaries, merge into last blocks and empty whole blocks.
          const store = openSqliteStore(dir, { _internal: { blockPostings: 2 } });
          store.reset(META);
          const state = new Map<string, readonly string[]>();
          for (const batch of batches) {
            // One write: its removals first, then its edits in order (each in place of the document's rows).
            const edits = batch.flatMap((op) => (op.kind === "put" ? [sourceEdit(op.id, op.texts)] : []));
            const removed = batch.flatMap((op) => (op.kind === "remove" ? [op.id] : []));
            store.write(edits, removed);
            for (const id of removed) state.delete(id);
            for (const op of batch) if (op.kind === "put") state.set(op.id, op.texts);
          }
          // A term's postings read at some chunks' keys (every other key, and keys no chunk has) are the ones its
          // whole postings hold there, across the edits' small and emptied blocks.
          const keys = [...store.allChunks()].flat().map((chunk) => chunk.key);
          const asked = [-1, ...keys.filter((_, index) => index % 2 === 0), (keys.at(-1) ?? 0) + 5];
          for (const term of new Set(WORDS.flatMap((word) => lexicalTokens(word)))) {
            const whole = store.postings(term);
            const picked = [...(whole?.keys ?? [])].flatMap((key, at) => (asked.includes(key) ? [at] : []));
            const at = store.postingsAt(term, asked);
            expect([...at.keys]).toEqual(picked.map((index) => whole?.keys[index]));
            expect([...at.frequencies]).toEqual(picked.map((index) => whole?.frequencies[index]));
            expect([...at.lengths]).toEqual(picked.map((index) => whole?.lengths[index]));
          }
          store.close();

          const fresh = tempDir();
          const rebuilt = openSqliteStore(fresh);
          rebuilt.reset(META);
          rebuilt.write([...state].map(([id, texts]) => sourceEdit(id, texts)));
          rebuilt.close();

          const edited = snapshot(dir);
          const expected = snapshot(fresh);
          expect(edited.postings.every((posting) => posting.node_id !== undefined)).toBe(true);
          expect(edited.stats).toEqual(edited.sums);
          expect(edited).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000); // 80 SQLite files written and compared
});
