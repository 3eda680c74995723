import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodePostings } from "./postings-codec.js";
import { type KeyedBlockRow, readPostings, readPostingsAt } from "./sqlite-postings.js";

const first = { keys: [3, 9, 400], frequencies: [1, 2, 70_000], lengths: [10, 200, 90_000] };
const second = { keys: [401, 2 ** 31 - 1], frequencies: [5, 1], lengths: [6, 7] };

describe("readPostings", () => {
  it("decodes a term's blocks, in order, into one list of keys, frequencies and lengths", () => {
    const got = readPostings(
      [
        { count: 3, block: encodePostings(first) },
        { count: 2, block: encodePostings(second) },
      ],
      "here",
    );
    expect(got && [...got.keys]).toEqual([...first.keys, ...second.keys]);
    expect(got && [...got.frequencies]).toEqual([...first.frequencies, ...second.frequencies]);
    expect(got && [...got.lengths]).toEqual([...first.lengths, ...second.lengths]);
    expect(readPostings([], "here")).toBeUndefined();
  });

  // Decoded in WebAssembly where it runs (as here), in JavaScript where it does not.
  for (const javascript of [false, true]) {
    it(`calls a block damaged when it holds more or fewer postings than its count, or ends inside a posting (${javascript ? "JavaScript" : "WebAssembly"})`, () => {
      const block = encodePostings(first);
      const read = (count: number, bytes: Uint8Array) => () =>
        readPostings([{ count, block: bytes }], "at /x", { javascript });
      expect(read(2, block)).toThrow(/holds a postings block that holds more postings than its count/);
      expect(read(4, block)).toThrow(/holds a postings block that is not readable/);
      expect(read(3, block.subarray(0, block.length - 1))).toThrow(/not readable/);
      expect(read(1, Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 1, 1]))).toThrow(/not readable/);
      expect(read(3, block)).not.toThrow();
      const both = readPostings(
        [
          { count: 3, block },
          { count: 2, block: encodePostings(second) },
        ],
        "here",
        { javascript },
      );
      expect(both && [...both.keys]).toEqual([...first.keys, ...second.keys]);
    });
  }
});

describe("readPostingsAt", () => {
  it("gives exactly the postings of the keys asked for, each block read once, whatever the gaps between blocks", () => {
    const blocksAndAsked = fc
      .uniqueArray(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 400 })
      .chain((keys) =>
        fc.tuple(
          fc.constant([...keys].sort((a, b) => a - b)),
          // Where blocks end: after these positions of the sorted keys.
          fc.uniqueArray(fc.nat(keys.length - 1), { maxLength: 12 }),
          // Keys asked for: held ones, and others anywhere (before the first block, in gaps, past the last).
          fc.uniqueArray(fc.oneof(fc.constantFrom(...keys), fc.integer({ min: -5, max: 3_100 })), {
            maxLength: 60,
          }),
        ),
      );
    fc.assert(
      fc.property(blocksAndAsked, ([keys, ends, asked]) => {
        const cuts = [...new Set([...ends, keys.length - 1])].sort((a, b) => a - b);
        const blocks: KeyedBlockRow[] = [];
        let start = 0;
        for (const end of cuts) {
          const part = keys.slice(start, end + 1);
          const list = {
            keys: part,
            frequencies: part.map((key) => key + 1),
            lengths: part.map((key) => 2 * key),
          };
          blocks.push({ first_key: part[0] as number, count: part.length, block: encodePostings(list) });
          start = end + 1;
        }
        const reads: number[] = [];
        const holding = (key: number) => {
          const row = blocks.findLast((block) => block.first_key <= key);
          if (row) reads.push(row.first_key);
          return row;
        };
        const sortedAsked = [...asked].sort((a, b) => a - b);
        const got = readPostingsAt(holding, sortedAsked, "here");
        const held = sortedAsked.filter((key) => keys.includes(key));
        expect([...got.keys]).toEqual(held);
        expect([...got.frequencies]).toEqual(held.map((key) => key + 1));
        expect([...got.lengths]).toEqual(held.map((key) => 2 * key));
        // A block is decoded once: asked again only to find a key past its end held by no later block.
        const decoded = reads.filter((firstKey, index) => index === 0 || reads[index - 1] !== firstKey);
        expect(new Set(decoded).size).toBe(decoded.length);
      }),
      { numRuns: 300 },
    );
  });
});
