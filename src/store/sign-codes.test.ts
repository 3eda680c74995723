import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  CODE_PAGE_KEYS,
  type CodePage,
  codeWords,
  signCodeCandidates,
  signCodesFit,
  writeSignCode,
} from "./sign-codes.js";

/** A deterministic generator (LCG) of uniform and Gaussian numbers. */
function random(seed: number) {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 4294967296;
  };
  return {
    uniform,
    gauss: () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform()),
  };
}

/** Pages holding `vectors` at keys `firstKey`, `firstKey + 1`, … (`skip` keys left without a vector). */
function pagesOf(
  vectors: readonly Float32Array[],
  dimensions: number,
  skip: ReadonlySet<number> = new Set(),
) {
  const words = codeWords(dimensions);
  const pages = new Map<number, CodePage>();
  vectors.forEach((vector, key) => {
    if (skip.has(key)) return;
    const index = Math.floor(key / CODE_PAGE_KEYS);
    let page = pages.get(index);
    if (!page) {
      page = {
        firstKey: index * CODE_PAGE_KEYS,
        present: new Uint8Array(CODE_PAGE_KEYS / 8),
        codes: new Uint32Array(CODE_PAGE_KEYS * words),
      };
      pages.set(index, page);
    }
    const slot = key - page.firstKey;
    writeSignCode(vector, page.codes, slot * words, words);
    page.present[slot >>> 3] = (page.present[slot >>> 3] as number) | (1 << (slot & 7));
  });
  return { pages: [...pages.values()].sort((a, b) => a.firstKey - b.firstKey), words };
}

function cosine(left: Float32Array, right: Float32Array): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let d = 0; d < left.length; d++) {
    dot += (left[d] as number) * (right[d] as number);
    leftNorm += (left[d] as number) ** 2;
    rightNorm += (right[d] as number) ** 2;
  }
  return dot / Math.sqrt(leftNorm * rightNorm);
}

/** Clustered vectors: `topics` Gaussian centres, each vector a centre plus Gaussian noise (text embeddings cluster). */
function clustered(count: number, dimensions: number, topics: number, seed: number): Float32Array[] {
  const { gauss, uniform } = random(seed);
  const centres = Array.from({ length: topics }, () => Float32Array.from({ length: dimensions }, gauss));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(uniform() * topics)] as Float32Array;
    return Float32Array.from(centre, (value) => value + 0.9 * gauss());
  });
}

describe("writeSignCode", () => {
  it("sets bit d exactly when value d is positive, in whole 32-bit words", () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true }), { minLength: 1, maxLength: 100 }), (values) => {
        const words = codeWords(values.length);
        expect(words).toBe(Math.ceil(values.length / 32));
        const target = new Uint32Array(words + 2).fill(0xffffffff);
        writeSignCode(values, target, 1, words);
        expect([target[0], target[words + 1]]).toEqual([0xffffffff, 0xffffffff]);
        for (let d = 0; d < words * 32; d++) {
          const bit = ((target[1 + (d >>> 5)] as number) >>> (d & 31)) & 1;
          expect(bit).toBe(d < values.length && (values[d] as number) > 0 ? 1 : 0);
        }
      }),
    );
  });
});

describe("signCodesFit", () => {
  it("takes a vector with at least half its components non-zero, not a sparser or an empty one", () => {
    expect(signCodesFit([0.1, -0.2, 0.3, 0.4])).toBe(true);
    expect(signCodesFit([0.1, 0, -0.3, 0])).toBe(true);
    expect(signCodesFit([0.1, 0, 0, 0])).toBe(false);
    expect(signCodesFit(new Float32Array(384).fill(0, 0, 200).fill(1, 200))).toBe(false);
    expect(signCodesFit([])).toBe(false);
  });
});

describe("signCodeCandidates", () => {
  it("returns every present key, ascending, when no more than `keep` are present", () => {
    const vectors = clustered(300, 40, 5, 1);
    const skip = new Set([0, 7, 299]);
    const { pages, words } = pagesOf(vectors, 40, skip);
    const keys = signCodeCandidates(pages, vectors[3] as Float32Array, words, { wide: 100, keep: 297 });
    expect(keys).toEqual([...vectors.keys()].filter((key) => !skip.has(key)));
  });

  it("keeps exactly `keep` present keys, ascending, the query's own vector among them, never an absent key", () => {
    // Keys on both sides of a page boundary, a third of them without a vector.
    const vectors = clustered(CODE_PAGE_KEYS + 2000, 64, 20, 2);
    const skip = new Set([...vectors.keys()].filter((key) => key % 3 === 0));
    const { pages, words } = pagesOf(vectors, 64, skip);
    expect(pages).toHaveLength(2);
    for (const queryKey of [1, 2, CODE_PAGE_KEYS + 1, CODE_PAGE_KEYS + 1999]) {
      const keys = signCodeCandidates(pages, vectors[queryKey] as Float32Array, words, {
        wide: 800,
        keep: 100,
      });
      expect(keys).toHaveLength(100);
      expect(keys).toEqual([...keys].sort((a, b) => a - b));
      expect(keys.some((key) => skip.has(key))).toBe(false);
      expect(keys).toContain(queryKey);
    }
  });

  it.each([
    { dimensions: 128, wide: 4000, keep: 400 },
    { dimensions: 256, wide: 2000, keep: 400 },
  ])(
    "finds ≥ 95% of the exact top 10 by cosine on clustered vectors of $dimensions dimensions, keeping 2% of them",
    ({ dimensions, wide, keep }) => {
      const vectors = clustered(20_000, dimensions, 100, 3);
      const { pages, words } = pagesOf(vectors, dimensions);
      const { gauss } = random(4);
      let found = 0;
      const queries = 30;
      for (let query = 0; query < queries; query++) {
        // A query near a stored vector, as a question is near the passages that answer it.
        const near = vectors[query * 601] as Float32Array;
        const vector = Float32Array.from(near, (value) => value + 0.5 * gauss());
        const exact = vectors
          .map((candidate, key) => ({ key, score: cosine(vector, candidate) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 10)
          .map((hit) => hit.key);
        const candidates = new Set(signCodeCandidates(pages, vector, words, { wide, keep }));
        expect(candidates.size).toBe(keep);
        found += exact.filter((key) => candidates.has(key)).length;
      }
      expect(found / (queries * 10)).toBeGreaterThanOrEqual(0.95);
    },
  );

  it("picks the same candidates with its Hamming pass in JavaScript", () => {
    const vectors = clustered(CODE_PAGE_KEYS + 1500, 72, 20, 5);
    const skip = new Set([...vectors.keys()].filter((key) => key % 5 === 0));
    const { pages, words } = pagesOf(vectors, 72, skip);
    for (const key of [2, 3, CODE_PAGE_KEYS + 7]) {
      const query = vectors[key] as Float32Array;
      const counts = { wide: 600, keep: 90 };
      const keys = signCodeCandidates(pages, query, words, counts);
      expect(keys).toHaveLength(90);
      expect(signCodeCandidates(pages, query, words, { ...counts, javascript: true })).toEqual(keys);
    }
  });

  describe("without WebAssembly (node --jitless)", () => {
    afterEach(() => {
      vi.unstubAllGlobals();
      vi.resetModules();
    });

    it("runs its JavaScript pass, to the same candidates", async () => {
      const vectors = clustered(CODE_PAGE_KEYS + 200, 40, 10, 6);
      const { pages, words } = pagesOf(vectors, 40);
      const counts = { wide: 400, keep: 50 };
      const query = vectors[9] as Float32Array;
      const withWasm = signCodeCandidates(pages, query, words, counts);
      vi.resetModules();
      vi.stubGlobal("WebAssembly", undefined);
      const jsOnly = await import("./sign-codes.js");
      expect(jsOnly.signCodeCandidates(pages, query, words, counts)).toEqual(withWasm);
      expect(withWasm).toContain(9);
    });
  });
});
