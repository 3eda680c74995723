import { describe, expect, it } from "vitest";
import { matchesRelevant, retrievalScores } from "./retrieval-metrics.js";

const chunk = (id: string, filePath?: string) => ({ id, filePath });

describe("matchesRelevant", () => {
  it("matches a basename like the bench, a path suffix at a folder boundary, or a chunk id", () => {
    expect(matchesRelevant(chunk("n1", "/corpus/ajv__README.md"), "ajv__README.md")).toBe(true);
    expect(matchesRelevant(chunk("n1", "/corpus/docs/cli.md"), "docs/cli.md")).toBe(true);
    expect(matchesRelevant(chunk("n1", "/corpus/mydocs/cli.md"), "docs/cli.md")).toBe(false);
    expect(matchesRelevant(chunk("n1", "/corpus/xREADME.md"), "README.md")).toBe(false);
    expect(matchesRelevant(chunk("n1", "C:\\docs\\cli.md"), "docs/cli.md")).toBe(true);
    expect(matchesRelevant(chunk("node-7"), "node-7")).toBe(true);
    expect(matchesRelevant(chunk("node-7"), "cli.md")).toBe(false);
  });

  it("matches a file a chunk stands for as a copy (collapseCopies' same_text_in)", () => {
    const html = { id: "n1", filePath: "/m/git-notes.html", copies: ["/m/git-notes.1.gz"] };
    expect(matchesRelevant(html, "git-notes.1.gz")).toBe(true);
    expect(matchesRelevant(html, "git-notes.html")).toBe(true);
    expect(matchesRelevant(html, "git-log.1.gz")).toBe(false);
    expect(
      retrievalScores({ retrieved: [chunk("a", "/m/x.md"), html], relevant: ["git-notes.1.gz"], k: 2 }).hit,
    ).toBe(1);
  });
});

describe("retrievalScores", () => {
  const retrieved = [
    chunk("a", "/d/x.md"),
    chunk("b", "/d/rel.md"),
    chunk("c", "/d/rel.md"),
    chunk("d", "/d/other.md"),
  ];

  it("scores the first relevant chunk's rank, hit, precision and recall within k", () => {
    const scores = retrievalScores({ retrieved, relevant: ["rel.md", "other.md"], k: 4 });
    expect(scores.hit).toBe(1);
    expect(scores.firstRelevantRank).toBe(2);
    expect(scores.reciprocalRank).toBe(0.5);
    expect(scores.precision).toBe(3 / 4);
    expect(scores.recall).toBe(1);
  });

  it("credits each relevant entry once in nDCG, so a file retrieved twice cannot pass 1", () => {
    const scores = retrievalScores({ retrieved, relevant: ["rel.md"], k: 4 });
    // One relevant entry at rank 2: DCG 1/log2(3), ideal 1/log2(2) = 1.
    expect(scores.ndcg).toBeCloseTo(1 / Math.log2(3), 12);
    const two = retrievalScores({ retrieved, relevant: ["rel.md", "other.md"], k: 4 });
    expect(two.ndcg).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)), 12);
  });

  it("counts only the first k chunks", () => {
    const scores = retrievalScores({ retrieved, relevant: ["other.md"], k: 3 });
    expect(scores).toEqual({
      hit: 0,
      reciprocalRank: 0,
      ndcg: 0,
      precision: 0,
      recall: 0,
      firstRelevantRank: null,
    });
    expect(retrievalScores({ retrieved, relevant: ["other.md"], k: 4 }).hit).toBe(1);
  });

  it("scores nothing retrieved as zero rather than dividing by zero", () => {
    expect(retrievalScores({ retrieved: [], relevant: ["x.md"], k: 4 }).precision).toBe(0);
  });
});
