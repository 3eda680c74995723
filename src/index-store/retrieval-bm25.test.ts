import { describe, expect, it } from "vitest";
import { LexicalIndex, RETRIEVAL_BM25 } from "../retrieval/lexical-index.js";
import { TextNode } from "../schema/text-node.js";
import { buildLexicalIndex } from "./index-retriever.js";

// Distinct filler words, so only "zebra" and "stripes" are shared between the texts.
const words = (count: number, prefix: string) =>
  Array.from(
    { length: count },
    (_, i) => `${prefix}${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
  ).join(" ");

// A short chunk that names the query word once, and a longer section on it that names it twice.
const NODES = [
  new TextNode({ id: "short", text: `Zebra ${words(8, "x")}.` }),
  new TextNode({ id: "section", text: `Zebra stripes. Zebra stripes. ${words(20, "y")}.` }),
  new TextNode({ id: "other", text: `${words(10, "z")}.` }),
  new TextNode({ id: "other2", text: `${words(12, "w")}.` }),
];

describe("the BM25 parameters chunks are retrieved with", () => {
  it("normalise length less than the textbook b 0.75: a section that names the query twice beats a short chunk naming it once", () => {
    const retrieval = buildLexicalIndex(NODES);
    expect({ k1: retrieval.k1, b: retrieval.b }).toEqual(RETRIEVAL_BM25);
    expect(retrieval.search("zebra", { topK: 2 }).map((hit) => hit.id)).toEqual(["section", "short"]);
    // With b 0.75 (LexicalIndex's default, which the extractive answerer scores sentences with) the order flips.
    const textbook = new LexicalIndex();
    for (const node of NODES) textbook.add(node.id, node.text);
    expect(textbook.b).toBe(0.75);
    expect(textbook.search("zebra", { topK: 2 }).map((hit) => hit.id)).toEqual(["short", "section"]);
  });
});
