import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { lexicalDocumentTerms, lexicalTokens } from "../analysis/lexical-tokens.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import { RagsynthError } from "../errors/ragsynth-error.js";
import { TEXT_WINDOW } from "../util/text-windows.js";
import { LexicalIndex } from "./lexical-index.js";

const ZEBRA = "Zebras are African equines with black-and-white striped coats.";
const RELEASE = "Release v2.9.1: merge the release branch, tag it, and push the branch to origin.";

describe("LexicalIndex", () => {
  it("finds the zebra file for 'zebras', where the hashing embedder's slot 333 collision lost it", async () => {
    // zebra, branch and v2.9.1 all hash to one of 1024 slots, so hashing similarity mixes them up.
    const embedder = new HashingEmbedder();
    const [zebra, release] = await embedder.getTextEmbeddings([ZEBRA, RELEASE]);
    const query = await embedder.getQueryEmbedding("zebras");
    const slot = query.findIndex((value) => value !== 0);
    expect(slot).toBe(333);
    expect(release?.[slot]).not.toBe(0);
    expect(zebra?.[slot]).not.toBe(0);

    const index = new LexicalIndex();
    index.add("release.md", RELEASE);
    index.add("zebra.md", ZEBRA);
    expect(index.search("zebras").map((hit) => hit.id)).toEqual(["zebra.md"]);
    expect(index.search("branch").map((hit) => hit.id)).toEqual(["release.md"]);
    expect(index.search("v2.9.1").map((hit) => hit.id)).toEqual(["release.md"]);
  });

  it("never returns a document that shares no term with the query", () => {
    const index = new LexicalIndex();
    index.add("a", "apples and pears");
    index.add("b", "trains and boats");
    expect(index.search("apple")).toEqual([{ id: "a", score: expect.any(Number) }]);
    expect(index.search("planes", { topK: 5 })).toEqual([]);
    expect(index.search("the and of")).toEqual([]);
  });

  it("ranks by BM25: rare terms weigh more, repeated terms saturate, long documents are normalised", () => {
    const index = new LexicalIndex();
    index.add("common", "cat cat cat dog");
    index.add("rare", "cat axolotl");
    index.add("other", "dog bird");
    const [best] = index.search("cat axolotl");
    expect(best?.id).toBe("rare");
    // BM25 by hand for the single-term query "axolotl" over 3 documents with average length 8/3.
    const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const norm = 1.2 * (1 - 0.75 + (0.75 * 2) / (8 / 3));
    expect(index.search("axolotl")[0]?.score).toBeCloseTo((idf * 1 * 2.2) / (1 + norm), 10);
  });

  it("weighs a Markdown heading's words twice (a light BM25F), so the section titled with a term wins", () => {
    const index = new LexicalIndex();
    // Same words, same length once tokenized; only the heading differs. Inserted first, so it would win a tie.
    index.add("body", "Retries are logged. The client waits, then sends the request again.");
    index.add("titled", "# Retries\n\nThe client waits, then sends the request again.");
    expect(index.search("retries").map((hit) => hit.id)).toEqual(["titled", "body"]);
    // Lines starting with `#` inside a code fence are comments, not headings.
    const count = (terms: string[], term: string) => terms.filter((t) => t === term).length;
    const terms = lexicalDocumentTerms("## Install\n\n```sh\n# install with npm\nnpm i ragsynth\n```\n");
    expect(count(terms, "install")).toBe(3);
    expect(count(terms, "npm")).toBe(2);
    expect(lexicalDocumentTerms("no heading # here")).toEqual(lexicalTokens("no heading # here"));
  });

  it("adds, replaces and removes documents one at a time", () => {
    const index = new LexicalIndex();
    index.add("a", "red fox");
    index.add("b", "blue whale");
    index.add("a", "green frog");
    expect(index.size).toBe(2);
    expect(index.search("fox")).toEqual([]);
    expect(index.search("frog").map((hit) => hit.id)).toEqual(["a"]);
    expect(index.remove("b")).toBe(true);
    expect(index.remove("b")).toBe(false);
    expect(index.search("whale")).toEqual([]);
    expect(index.has("b")).toBe(false);
    index.add("c", "blue frog");
    expect(index.search("frog blue").map((hit) => hit.id)).toEqual(["c", "a"]);
  });

  it("scores the same after removals as an index built without the removed documents", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom("alpha", "beta", "gamma", "delta", "eps"), { maxLength: 6 }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (documents, removals) => {
          const incremental = new LexicalIndex();
          for (const [id, words] of documents.entries()) incremental.add(String(id), words.join(" "));
          const removed = new Set(removals.map((n) => String(n % documents.length)));
          for (const id of removed) incremental.remove(id);
          const fresh = new LexicalIndex();
          documents.forEach((words, id) => {
            if (!removed.has(String(id))) fresh.add(String(id), words.join(" "));
          });
          for (const query of ["alpha", "beta gamma", "eps delta alpha"]) {
            expect(incremental.search(query, { topK: 20 })).toEqual(fresh.search(query, { topK: 20 }));
          }
        },
      ),
    );
  });

  it("round-trips through JSON, with removed documents left out", () => {
    const index = new LexicalIndex({ k1: 1.5, b: 0.5 });
    index.add("a", "the quick brown fox");
    index.add("b", "a lazy dog sleeps");
    index.add("c", "quick dog");
    index.remove("b");
    const restored = LexicalIndex.fromJSON(JSON.parse(JSON.stringify(index)));
    expect(restored.k1).toBe(1.5);
    expect(restored.size).toBe(2);
    expect(restored.search("quick dog")).toEqual(index.search("quick dog"));
    expect(index.toJSON().ids).toEqual(["a", "c"]);
  });

  it("rejects a damaged serialization with a typed error that says how to fix it", () => {
    const good = (() => {
      const index = new LexicalIndex();
      index.add("a", "one two");
      return index.toJSON();
    })();
    for (const bad of [
      null,
      { ...good, version: 2 },
      { ...good, lengths: [] },
      { ...good, postings: [[5, 1]] },
      { ...good, postings: [[0, 0]] },
      { ...good, k1: Number.NaN },
    ]) {
      expect(() => LexicalIndex.fromJSON(bad)).toThrow(/Rebuild the index/);
      try {
        LexicalIndex.fromJSON(bad);
      } catch (error) {
        expect(RagsynthError.isInstance(error, "index_load")).toBe(true);
      }
    }
  });

  it("round-trips through JSON Lines, and rejects a damaged line with a typed error", () => {
    const index = new LexicalIndex({ k1: 1.5, b: 0.5 });
    index.add("a", "the quick brown fox");
    index.add("b", "a lazy dog sleeps");
    index.add("c", "quick dog quick");
    index.remove("b");
    const [header, ...terms] = [...index.toJSONLines()].map((line) => JSON.parse(line));
    expect(header).toMatchObject({ ids: ["a", "c"], terms: terms.length });
    expect(terms).toContainEqual(["quick", [0, 1, 1, 2]]);
    const restored = LexicalIndex.fromJSONLines(header, terms);
    expect(restored.size).toBe(2);
    expect(restored.search("quick dog")).toEqual(index.search("quick dog"));

    const lines = () => [...index.toJSONLines()].map((line) => JSON.parse(line));
    for (const [damage, message] of [
      [(all: unknown[]) => all.pop(), /term lines/],
      [(all: unknown[]) => all.splice(1, 1, ["quick", [0, 1, 0, 2]]), /positive integer/],
      [(all: unknown[]) => all.splice(1, 1, ["quick", [2, 1]]), /inside 2 documents/],
      [(all: unknown[]) => all.splice(1, 1, "quick"), /as \["term"/],
      [(all: unknown[]) => all.splice(0, 1, { ...header, ids: ["a", "a"] }), /distinct ids/],
    ] as const) {
      const [first, ...rest] = lines();
      const all = [first, ...rest];
      damage(all);
      const [damagedHeader, ...damagedTerms] = all;
      let error: unknown;
      try {
        LexicalIndex.fromJSONLines(damagedHeader, damagedTerms);
      } catch (caught) {
        error = caught;
      }
      expect(RagsynthError.isInstance(error, "index_load")).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
  });

  it("parses a raw term line's postings only when a search first needs that term", () => {
    const index = new LexicalIndex();
    index.add("a", "the quick brown fox");
    index.add("b", "a lazy dog sleeps");
    index.add("c", 'quick dog quick \\ "quoted"');
    const [headerLine, ...termLines] = [...index.toJSONLines()];
    const restored = LexicalIndex.fromJSONLines(JSON.parse(headerLine as string), termLines);
    expect(restored.termCount).toBe(termLines.length);
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(restored.search("quick dog")).toEqual(index.search("quick dog"));
      // Two query terms, two postings parsed: not the other terms' lines.
      expect(parse).toHaveBeenCalledTimes(2);
      restored.search("quick dog");
      expect(parse).toHaveBeenCalledTimes(2);
      expect(restored.search("quoted")).toEqual(index.search("quoted"));
    } finally {
      parse.mockRestore();
    }
    expect(LexicalIndex.fromJSONLines(JSON.parse(headerLine as string), termLines).toJSON()).toEqual(
      index.toJSON(),
    );
  });

  it("reports a damaged raw term line as index_load when its term is used, not before", () => {
    const index = new LexicalIndex();
    index.add("a", "the quick brown fox");
    index.add("b", "a lazy dog sleeps");
    const [headerLine, ...termLines] = [...index.toJSONLines()];
    const header = JSON.parse(headerLine as string);
    for (const [damaged, message] of [
      ['["dog",[1,x]]', /term line "dog"/],
      ['["dog",[5,1]]', /inside 2 documents/],
    ] as const) {
      const lines = termLines.map((line) => (line.startsWith('["dog"') ? damaged : line));
      const restored = LexicalIndex.fromJSONLines(header, lines);
      expect(restored.search("quick")).toEqual(index.search("quick"));
      let error: unknown;
      try {
        restored.search("lazy dog");
      } catch (caught) {
        error = caught;
      }
      expect(RagsynthError.isInstance(error, "index_load")).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
    // A line that does not even start with a term fails at load.
    expect(() => LexicalIndex.fromJSONLines(header, [...termLines.slice(1), "{"])).toThrow(/term line/);
  });

  it("rejects bad arguments from plain JavaScript callers", () => {
    expect(() => new LexicalIndex({ b: 2 })).toThrow(/Expected `b` to be a number between 0 and 1/);
    const index = new LexicalIndex();
    expect(() => index.add(1 as unknown as string, "x")).toThrow(/Expected `id` to be a string/);
    expect(() => index.search("x", { topK: 0 })).toThrow(/Expected `topK` to be a positive integer/);
  });

  it("finds Chinese by word and by character bigram", () => {
    const index = new LexicalIndex();
    index.add("paris", "巴黎是法国的首都，也是最大的城市。");
    index.add("tokyo", "东京是日本的首都。");
    expect(index.search("法国首都")[0]?.id).toBe("paris");
    expect(index.search("日本")[0]?.id).toBe("tokyo");
  });

  it("finds Korean by character bigram inside a word with its particle (한강 in 한강은)", () => {
    const index = new LexicalIndex();
    index.add("river", "한강은 서울을 가로질러 흐른다.");
    index.add("mountain", "북한산은 서울의 북쪽에 있다.");
    expect(index.search("한강").map(({ id }) => id)).toEqual(["river"]);
    expect(index.search("북한산")[0]?.id).toBe("mountain");
  });
});

describe("lexicalTokens", () => {
  it("keeps joined words whole and in parts, so a bare name and an exact flag or version both match", () => {
    expect(lexicalTokens("Set options.timeout in v2.9.1 with --no-color")).toEqual([
      "set",
      "option",
      "timeout",
      "options.timeout",
      "2.9.1",
      "v2",
      "v2.9.1",
      "color",
      "no-color",
    ]);
    expect(lexicalTokens("Zebras' stripes and the ZEBRA's")).toEqual(["zebra", "stripe", "zebra"]);
    expect(lexicalTokens("keepAliveTimeout")).toEqual(["keep", "alive", "timeout", "keepalivetimeout"]);
    expect(lexicalTokens("file_path v5")).toEqual(["file", "path", "file_path", "5", "v5"]);
  });

  it("keeps a name written with a leading dot (a dotfile) whole beside the bare word, not a joined word's part", () => {
    expect(lexicalTokens("Never commit the .env file (or a/.npmrc, `.env.local`)")).toEqual([
      "never",
      "commit",
      ".env",
      "env",
      "file",
      ".npmrc",
      "npmrc",
      ".env.local",
      "env",
      "local",
      "env.local",
    ]);
    // A dot inside a joined word, after another dot, or before a digit names no file.
    expect(lexicalTokens("process.env e.g. ...and .5")).toEqual([
      "process",
      "env",
      "process.env",
      "e",
      "g",
      "e.g",
      "5",
    ]);
    // So a question about the `.env` file ranks the text that names the file above text that only reads `env`.
    const index = new LexicalIndex();
    index.add(
      "process-env",
      "Read process.env.PORT: env vars from the shell win over the file, and env is read once per file.",
    );
    index.add("dotfile", "Keep secrets in a .env file, and never commit it.");
    expect(index.search("should the .env file be committed?").map((hit) => hit.id)).toEqual([
      "dotfile",
      "process-env",
    ]);
  });

  it("keeps a language or tool named with ++ or # (C++, g++, C#) as a term, in place of a lone letter", () => {
    expect(lexicalTokens("Build C/C++ with g++; C# and F# too. Notepad++")).toEqual([
      "build",
      "c",
      "c",
      "c/c",
      "c++",
      "g++",
      "c#",
      "f#",
      "notepad",
      "notepad++",
    ]);
    // Not a name: three pluses, `#` after a longer word or before a word character, Markdown's `#`.
    expect(lexicalTokens("c+++ issue#12 x#y ## Usage")).toEqual(["c", "issue", "12", "x", "y", "usage"]);
    // So a question about C++ ranks the C++ page (CMake's CXX_STANDARD) above the C one, which ranked first before,
    // and a question about C the C page first.
    const index = new LexicalIndex();
    index.add(
      "C_STANDARD",
      "C_STANDARD. The C standard whose features are requested to build this target. Set the C standard of a target.",
    );
    index.add(
      "CXX_STANDARD",
      "CXX_STANDARD. The C++ standard whose features are requested to build this target. Supported values: C++11, C++14, C++17.",
    );
    expect(index.search("How do I set the C++ standard for a target?").map((hit) => hit.id)).toEqual([
      "CXX_STANDARD",
      "C_STANDARD",
    ]);
    expect(index.search("How do I set the C standard for a target?").map((hit) => hit.id)).toEqual([
      "C_STANDARD",
      "CXX_STANDARD",
    ]);
  });

  it("hands the segmenter no more than one window, however long the text", () => {
    const sizes: number[] = [];
    const prose = "Zebras graze on the savanna in large herds. ".repeat(5_000);
    const run = "x".repeat(50_000);
    const chinese = "巴黎是法国的首都".repeat(2_000);
    for (const text of [prose, run, chinese]) lexicalTokens(text, (window) => sizes.push(window.length));
    expect(sizes.length).toBeGreaterThan(100);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(TEXT_WINDOW);
  });

  it("loses no word when windows end at whitespace", () => {
    const text = "Zebras graze on the savanna in large herds. ".repeat(200);
    const terms = lexicalTokens(text);
    expect(terms.filter((term) => term === "zebra")).toHaveLength(200);
    expect(terms.filter((term) => term === "herd")).toHaveLength(200);
    expect(terms).toHaveLength(200 * 5);
  });
});
