import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codeScan } from "./sign-code-scan.js";

/** A deterministic stream of 32-bit words. */
function words32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
}

function popcount(x: number): number {
  let count = 0;
  for (let bits = x >>> 0; bits !== 0; bits &= bits - 1) count++;
  return count;
}

describe("codeScan", () => {
  it("gives the same distances, counts and nearest positions in WebAssembly and JavaScript, the distances exact", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 13 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (words, pages, keys, seed) => {
          const next = words32(seed);
          const query = Uint32Array.from({ length: words }, next);
          const options = { words, keys, pages };
          const wasm = codeScan(query, options);
          const js = codeScan(query, { ...options, javascript: true });
          const expected: number[] = [];
          for (let page = 0; page < pages; page++) {
            // Codes near the query as well as random ones, so small distances are counted too.
            const codes = Uint32Array.from({ length: keys * words }, (_, index) =>
              index % 3 === 0 ? (query[index % words] as number) ^ (1 << (next() & 31)) : next(),
            );
            wasm.page(codes, page);
            js.page(codes, page);
            for (let slot = 0; slot < keys; slot++) {
              let distance = 0;
              for (let word = 0; word < words; word++)
                distance += popcount((codes[slot * words + word] as number) ^ (query[word] as number));
              expected.push(distance);
            }
          }
          expect([...wasm.distances]).toEqual(expected);
          expect([...js.distances]).toEqual(expected);
          expect(wasm.counts()).toEqual(js.counts());
          const sorted = [...expected].sort((a, b) => a - b);
          const limit = sorted[Math.floor(sorted.length / 2)] as number;
          for (const atLimit of [0, 1, 3]) {
            const nearest = [...wasm.nearest(limit, atLimit)];
            expect(nearest).toEqual([...js.nearest(limit, atLimit)]);
            const below = expected.filter((distance) => distance < limit).length;
            const equal = expected.filter((distance) => distance === limit).length;
            expect(nearest).toHaveLength(below + Math.min(atLimit, equal));
            expect(nearest).toEqual([...nearest].sort((a, b) => a - b));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("counts a distance of every bit and of none", () => {
    const words = 12;
    const query = new Uint32Array(words).fill(0xffffffff);
    const codes = new Uint32Array(4096 * words);
    codes.fill(0xffffffff, 0, words);
    const scan = codeScan(query, { words, keys: 4096, pages: 1 });
    scan.page(codes, 0);
    expect([scan.distances[0], scan.distances[1]]).toEqual([0, 384]);
    const counts = scan.counts();
    expect([counts[0], counts[384]]).toEqual([1, 4095]);
    expect([...scan.nearest(1, 0)]).toEqual([0]);
  });

  it.each([false, true])("refuses a page it was not made for (javascript: %s)", (javascript) => {
    const scan = codeScan(new Uint32Array(2), { words: 2, keys: 8, pages: 2, javascript });
    expect(() => scan.page(new Uint32Array(16), 2)).toThrow(
      "page 2 of 16 words, for a scan of 2 pages of 8 codes of 2 words",
    );
    expect(() => scan.page(new Uint32Array(15), 0)).toThrow(RangeError);
  });
});
