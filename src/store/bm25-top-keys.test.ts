import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wasmRareSurvivors } from "./bm25-rare-sums.js";
import { type Bm25Term, bm25TopKeys, bm25TopKeysOfTerms } from "./bm25-top-keys.js";
import type { TermPostings } from "./index-store.js";

const K1 = 1.2;
const B = 0.6;

/** Every posting of every list scored, summed in list order: what the pruned ranking must equal exactly. */
function fullScoring(lists: TermPostings[], documents: number, averageLength: number, topK: number) {
  const scores = new Map<number, number>();
  for (const { keys, frequencies, lengths } of lists) {
    const idf = Math.log(1 + (documents - keys.length + 0.5) / (keys.length + 0.5));
    for (let at = 0; at < keys.length; at++) {
      const tf = frequencies[at] as number;
      const norm = K1 * (1 - B + (B * (lengths[at] as number)) / averageLength);
      const key = keys[at] as number;
      scores.set(key, (scores.get(key) ?? 0) + (idf * tf * (K1 + 1)) / (tf + norm));
    }
  }
  return [...scores]
    .sort(([leftKey, left], [rightKey, right]) => right - left || leftKey - rightKey)
    .slice(0, topK);
}

/** A corpus of `documents` chunks, each holding each term with the term's probability, as postings lists. */
function corpus(documents: number, chances: number[], seed: number) {
  let state = seed >>> 0 || 1;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const lists: TermPostings[] = chances.map(() => ({ keys: [], frequencies: [], lengths: [] }));
  let totalLength = 0;
  for (let key = 0; key < documents; key++) {
    const length = 5 + Math.floor(random() * 60);
    totalLength += length;
    for (const [term, chance] of chances.entries()) {
      if (random() >= chance) continue;
      const list = lists[term] as { keys: number[]; frequencies: number[]; lengths: number[] };
      list.keys.push(key);
      list.frequencies.push(1 + Math.floor(random() * random() * 6));
      list.lengths.push(length);
    }
  }
  return { lists: lists.filter((list) => list.keys.length > 0), averageLength: totalLength / documents };
}

/**
 * A random case: up to `maxDocuments` chunks, 1–6 terms each in a share of them (rare ones below 8%, common ones from
 * 10%), a top k of 1–12, a seed.
 */
function corpusCase(maxDocuments: number) {
  return [
    fc.integer({ min: 1, max: maxDocuments }),
    fc.array(fc.oneof(fc.double({ min: 0.001, max: 0.08 }), fc.double({ min: 0.1, max: 1 })), {
      minLength: 1,
      maxLength: 6,
    }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer(),
  ] as const;
}

describe("bm25TopKeys", () => {
  it("ranks exactly as scoring every posting: the same keys, ties by key, and bit-identical scores", () => {
    fc.assert(
      fc.property(...corpusCase(400), (documents, chances, topK, seed) => {
        const { lists, averageLength } = corpus(documents, chances, seed);
        const got = bm25TopKeys(lists, { documents, averageLength, topK, k1: K1, b: B });
        const expected = fullScoring(lists, documents, averageLength, topK);
        expect(got.keys).toEqual(expected.map(([key]) => key));
        for (const [key, score] of expected) expect(Object.is(got.scores.get(key), score)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it("skips a common term's postings in chunks no rarer term found, when they cannot reach the top k", () => {
    // 20,000 chunks: "common" in about 30% of them, two rare terms in about 1% each.
    const { lists, averageLength } = corpus(20_000, [0.01, 0.3, 0.01], 7);
    const total = lists.reduce((sum, list) => sum + list.keys.length, 0);
    const got = bm25TopKeys(lists, { documents: 20_000, averageLength, topK: 4, k1: K1, b: B });
    const expected = fullScoring(lists, 20_000, averageLength, 4);
    expect(got.keys).toEqual(expected.map(([key]) => key));
    const rare = (lists[0]?.keys.length ?? 0) + (lists[2]?.keys.length ?? 0);
    // The rare postings, and the common term's only where a rare term is: far fewer than all.
    expect(got.scored).toBeLessThanOrEqual(2 * rare);
    expect(got.scored).toBeLessThan(total / 2);
  });

  it("ranks chunks whose keys are near 2^31 exactly (its arrays follow the postings, not the key range)", () => {
    const high = 2 ** 31 - 10;
    const lists: TermPostings[] = [
      { keys: Int32Array.from([7, high, high + 5]), frequencies: [1, 3, 1], lengths: [10, 10, 40] },
      { keys: Int32Array.from([high]), frequencies: [2], lengths: [10] },
    ];
    const ranking = { documents: 2 ** 31, averageLength: 20, topK: 2, k1: K1, b: B };
    const got = bm25TopKeys(lists, ranking);
    const expected = fullScoring(lists, ranking.documents, 20, 2);
    expect(got.keys).toEqual([high, 7]);
    expect(got.keys).toEqual(expected.map(([key]) => key));
    for (const [key, score] of expected) expect(Object.is(got.scores.get(key), score)).toBe(true);
  });

  it("scores the common terms everywhere when a chunk only they reach could still be among the best", () => {
    // Two common terms that together outscore the one rare term's chunk: the best chunks hold only them.
    const documents = 1_000;
    const common = (every: number): TermPostings => {
      const keys = [];
      for (let key = 0; key < documents; key += every) keys.push(key);
      return { keys, frequencies: keys.map(() => 5), lengths: keys.map(() => 3) };
    };
    const rare: TermPostings = { keys: [501], frequencies: [1], lengths: [200] };
    const lists = [common(3), rare, common(4)];
    const got = bm25TopKeys(lists, { documents, averageLength: 20, topK: 3, k1: K1, b: B });
    const expected = fullScoring(lists, documents, 20, 3);
    expect(got.keys).toEqual(expected.map(([key]) => key));
    expect(got.keys).toEqual([0, 12, 24]);
    expect(got.scored).toBe(lists.reduce((sum, list) => sum + list.keys.length, 0));
  });
});

/** Terms over full lists that count what is read: whole lists, and postings read at keys. */
function countingTerms(lists: TermPostings[]) {
  const read = { whole: [] as number[], atKeys: 0, atPostings: 0 };
  const terms: Bm25Term[] = lists.map((list, index) => ({
    frequency: list.keys.length,
    all: () => {
      read.whole.push(index);
      return list;
    },
    at: (keys: Float64Array) => {
      read.atKeys += keys.length;
      const wanted = new Set(keys);
      const picked = [...list.keys.keys()].filter((at) => wanted.has(list.keys[at] as number));
      read.atPostings += picked.length;
      return {
        keys: picked.map((at) => list.keys[at] as number),
        frequencies: picked.map((at) => list.frequencies[at] as number),
        lengths: picked.map((at) => list.lengths[at] as number),
      };
    },
  }));
  return { terms, read };
}

describe("bm25TopKeysOfTerms", () => {
  // The rarer terms are summed in WebAssembly where it runs (as here), in JavaScript where it does not.
  for (const javascript of [false, true]) {
    it(`ranks exactly as scoring every posting, reading common terms only where it needs them (${javascript ? "JavaScript" : "WebAssembly"})`, async () => {
      let pruned = 0;
      await fc.assert(
        fc.asyncProperty(...corpusCase(3_000), async (documents, chances, topK, seed) => {
          const { lists, averageLength } = corpus(documents, chances, seed);
          const { terms, read } = countingTerms(lists);
          const ranking = { documents, averageLength, topK, k1: K1, b: B };
          const got = await bm25TopKeysOfTerms(terms, ranking, { javascript });
          const expected = fullScoring(lists, documents, averageLength, topK);
          expect(got.keys).toEqual(expected.map(([key]) => key));
          for (const [key, score] of expected) expect(Object.is(got.scores.get(key), score)).toBe(true);
          if (read.atKeys > 0) pruned++;
        }),
        { numRuns: 300 },
      );
      // The case this is for came up: some runs read a common term only at some keys.
      expect(pruned).toBeGreaterThan(10);
    });
  }

  it("leaves keys past 2^31 - 1 (which its i32 cannot hold) to the JavaScript", () => {
    const ranking = { documents: 2 ** 33, averageLength: 20, topK: 1, k1: K1, b: B };
    const test = { topK: 1, bound: 0, factor: 1 + 1e-9 };
    const high: TermPostings = { keys: [5, 2 ** 31 + 7], frequencies: [1, 2], lengths: [10, 10] };
    expect(wasmRareSurvivors([high], [3], ranking, test)).toBeUndefined();
    const fits: TermPostings = { keys: [5, 2 ** 31 - 1], frequencies: [1, 2], lengths: [10, 10] };
    expect(Array.from(wasmRareSurvivors([fits], [3], ranking, test)?.survivors ?? [])).toEqual([2 ** 31 - 1]);
  });

  it("prunes with the same floor and survivors in WebAssembly as in JavaScript, bit for bit", async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(...corpusCase(3_000), async (documents, chances, topK, seed) => {
        const { lists, averageLength } = corpus(documents, chances, seed);
        const rare = lists.filter((list) => list.keys.length <= documents * 0.1);
        if (rare.length === 0) return;
        const ranking = { documents, averageLength, topK, k1: K1, b: B };
        const idfs = rare.map((list) =>
          Math.log(1 + (documents - list.keys.length + 0.5) / (list.keys.length + 0.5)),
        );
        const test = { topK, bound: 0, factor: 1 + 1e-9 };
        const wasm = wasmRareSurvivors(rare, idfs, ranking, test);
        expect(wasm).toBeDefined();
        // The sums of the survivors, from the full scoring of the rare lists alone, in list order.
        const sums = new Map<number, number>();
        for (const [index, { keys, frequencies, lengths }] of rare.entries())
          for (let at = 0; at < keys.length; at++) {
            const tf = frequencies[at] as number;
            const norm = K1 * (1 - B + (B * (lengths[at] as number)) / averageLength);
            const key = keys[at] as number;
            sums.set(key, (sums.get(key) ?? 0) + ((idfs[index] as number) * tf * (K1 + 1)) / (tf + norm));
          }
        const ordered = [...sums.values()].sort((left, right) => right - left);
        const floor = ordered.length >= topK ? (ordered[topK - 1] as number) : 0;
        expect(Object.is(wasm?.floor, floor)).toBe(true);
        const kept = [...sums].filter(([, sum]) => !(sum * test.factor < floor)).map(([key]) => key);
        if (floor > 0)
          expect(Array.from(wasm?.survivors ?? [])).toEqual(kept.sort((left, right) => left - right));
        compared++;
      }),
      { numRuns: 200 },
    );
    expect(compared).toBeGreaterThan(100);
  });

  it("reads a common term only in the few chunks whose rarer terms' scores leave them a chance", async () => {
    // 100,000 chunks: "common" in about 30% of them, two rarer terms in about 2% each (both in about 40).
    const documents = 100_000;
    const { lists, averageLength } = corpus(documents, [0.02, 0.3, 0.02], 11);
    const { terms, read } = countingTerms(lists);
    const got = await bm25TopKeysOfTerms(terms, { documents, averageLength, topK: 4, k1: K1, b: B });
    expect(got.keys).toEqual(fullScoring(lists, documents, averageLength, 4).map(([key]) => key));
    expect(read.whole).toEqual([0, 2]);
    const common = lists[1] as TermPostings;
    expect(read.atKeys).toBeGreaterThanOrEqual(4);
    expect(read.atPostings).toBeLessThan(common.keys.length / 64);
  });

  it("reads every term whole when a chunk only the common terms reach could be among the best", async () => {
    const documents = 1_000;
    const common = (every: number): TermPostings => {
      const keys = [];
      for (let key = 0; key < documents; key += every) keys.push(key);
      return { keys, frequencies: keys.map(() => 5), lengths: keys.map(() => 3) };
    };
    const lists = [common(3), { keys: [501], frequencies: [1], lengths: [200] }, common(4)];
    const { terms, read } = countingTerms(lists);
    const got = await bm25TopKeysOfTerms(terms, { documents, averageLength: 20, topK: 3, k1: K1, b: B });
    expect(got.keys).toEqual([0, 12, 24]);
    expect(read.whole.sort()).toEqual([0, 1, 2]);
    expect(read.atKeys).toBe(0);
  });
});
