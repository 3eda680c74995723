import { describe, expect, it } from "vitest";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { TextNode } from "../schema/text-node.js";
import { LexicalIndex } from "./lexical-index.js";
import { createLexicalRetriever } from "./lexical-retriever.js";

const node = (id: string, text: string, file?: string) =>
  new TextNode({ id, text, metadata: file === undefined ? {} : { file_path: file } });

// One chunk of stray.md matches the query a little better than each chunk of guide.md (BM25 0.57 against
// 0.53 and 0.43); guide.md matches it in two places, and has a third chunk that shares no word with the query.
const NODES = [
  node("stray#0", "Proxy timeout settings and the proxy timeout default.", "stray.md"),
  node("guide#0", "The proxy timeout is configurable.", "guide.md"),
  node("guide#1", "Set the proxy timeout per route.", "guide.md"),
  node("guide#2", "Zebras have stripes.", "guide.md"),
  node("loose", "Proxy timeout, without a file."),
];

function retriever(options: { sameFileWeight?: number; similarityTopK?: number } = {}) {
  const index = new LexicalIndex();
  for (const n of NODES) index.add(n.id, n.text);
  const byId = new Map(NODES.map((n) => [n.id, n]));
  return createLexicalRetriever({ index, getNode: (id) => byId.get(id), similarityTopK: 5, ...options });
}

describe("createLexicalRetriever", () => {
  it("adds evidence from the other matching chunks of a node's file, and none for chunks that match nothing", async () => {
    const plain = await retriever({ sameFileWeight: 0 }).retrieve({ query: "proxy timeout" });
    expect(plain[0]?.node.id).toBe("stray#0");
    const withFile = await retriever().retrieve({ query: "proxy timeout" });
    expect(withFile[0]?.node.id).toBe("guide#0");
    const order = (list: typeof plain) => list.map(({ node }) => node.id);
    expect(order(plain).indexOf("guide#1")).toBeGreaterThan(order(plain).indexOf("loose"));
    expect(order(withFile).indexOf("guide#1")).toBeLessThan(order(withFile).indexOf("loose"));
    // A chunk that shares no word with the query is still never retrieved, whatever its file.
    expect(withFile.map(({ node }) => node.id)).not.toContain("guide#2");
    // Scores are BM25 plus 0.3 × ln(1 + the other matches' scores); nodes without a file_path keep theirs.
    const bm25 = new Map(plain.map(({ node, score }) => [node.id, score as number]));
    const guide = withFile.find(({ node }) => node.id === "guide#0");
    const expected = (bm25.get("guide#0") as number) + 0.3 * Math.log1p(bm25.get("guide#1") as number);
    expect(guide?.score).toBeCloseTo(expected, 10);
    expect(withFile.find(({ node }) => node.id === "loose")?.score).toBe(bm25.get("loose"));
  });

  it("returns at most similarityTopK nodes, best first", async () => {
    const top = await retriever({ similarityTopK: 2 }).retrieve({ query: "proxy timeout" });
    expect(top).toHaveLength(2);
    expect((top[0]?.score as number) >= (top[1]?.score as number)).toBe(true);
  });

  it("rejects a sameFileWeight that is not a finite number ≥ 0", () => {
    for (const sameFileWeight of [-1, Number.NaN, Number.POSITIVE_INFINITY, "0.3" as unknown as number]) {
      let error: unknown;
      try {
        retriever({ sameFileWeight });
      } catch (caught) {
        error = caught;
      }
      expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
      expect((error as Error).message).toMatch(/sameFileWeight/);
    }
  });
});
