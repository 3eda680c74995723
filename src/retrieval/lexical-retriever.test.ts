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

function retriever(options: { sameFileWeight?: number; similarityTopK?: number; pathWeight?: number } = {}) {
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

  it("adds the idf of the query's words found in a node's file_path, so a question naming a package finds its docs", async () => {
    const nodes = [
      node(
        "other",
        "A zebra timeout. The timeout in milliseconds, the timeout of the timeout.",
        "docs/other.md",
      ),
      node(
        "named",
        "Options: set the timeout for each request of the server here.",
        "node_modules/zebra/README.md",
      ),
      ...["lions", "tigers", "bears", "wolves"].map((word) =>
        node(word, `About ${word}.`, `docs/${word}.md`),
      ),
    ];
    // As the index holds nodes: the file_path line, then the text.
    const index = new LexicalIndex();
    for (const n of nodes) index.add(n.id, `file_path: ${n.metadata.file_path}\n${n.text}`);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const make = (pathWeight: number) =>
      createLexicalRetriever({
        index,
        getNode: (id) => byId.get(id),
        similarityTopK: 3,
        sameFileWeight: 0,
        pathWeight,
      });
    const plain = await make(0).retrieve({ query: "zebra timeout" });
    const withPath = await make(2).retrieve({ query: "zebra timeout" });
    expect(plain[0]?.node.id).toBe("other");
    expect(withPath[0]?.node.id).toBe("named");
    const bm25 = new Map(plain.map(({ node, score }) => [node.id, score as number]));
    expect(withPath.find(({ node }) => node.id === "named")?.score).toBeCloseTo(
      (bm25.get("named") as number) + 2 * index.idf("zebra"),
      10,
    );
    // A path without the query's words keeps its BM25 score.
    expect(withPath.find(({ node }) => node.id === "other")?.score).toBe(bm25.get("other"));
  });

  it("rejects a pathWeight that is not a finite number ≥ 0", () => {
    for (const pathWeight of [-1, Number.NaN, "2" as unknown as number]) {
      let error: unknown;
      try {
        retriever({ pathWeight });
      } catch (caught) {
        error = caught;
      }
      expect(RagsynthError.isInstance(error, "invalid_argument")).toBe(true);
      expect((error as Error).message).toMatch(/pathWeight/);
    }
  });
});
