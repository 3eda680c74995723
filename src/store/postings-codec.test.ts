import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodePostings,
  dropFromBlock,
  encodePostings,
  lastKeyOfBlock,
  type PostingsList,
} from "./postings-codec.js";

const decoded = (block: Uint8Array): PostingsList => {
  const list: PostingsList = { keys: [], frequencies: [], lengths: [] };
  expect(decodePostings(block, list)).toBe(true);
  return list;
};

// Keys up to 2^31 - 1 with gaps of every varint width, and fields as wide.
const keysArbitrary = fc
  .uniqueArray(fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })), {
    minLength: 1,
    maxLength: 300,
  })
  .map((keys) => keys.sort((a, b) => a - b));
const listOf = (keys: number[]): PostingsList => ({
  keys,
  frequencies: keys.map((key) => (key % 300) + 1),
  lengths: keys.map((key) => (key % 70_000) + 7),
});

describe("dropFromBlock", () => {
  it("takes exactly the postings of the keys gone, keeping the others in order with their fields", () => {
    const keysAndGone = keysArbitrary.chain((keys) =>
      fc.tuple(
        fc.constant(keys),
        // Keys to take out: some held by the block, some not (another block's), in any number, all at times.
        fc.oneof(
          fc.uniqueArray(fc.oneof(fc.constantFrom(...keys), fc.nat(2 ** 31 - 1)), { maxLength: 40 }),
          fc.constant(keys),
        ),
      ),
    );
    fc.assert(
      fc.property(keysAndGone, ([keys, gone]) => {
        const goneSet = new Set(gone);
        const kept = keys.filter((key) => !goneSet.has(key));
        const changed = dropFromBlock(encodePostings(listOf(keys)), Int32Array.from(gone).sort());
        expect(changed).toBeDefined();
        if (!changed) return;
        expect(changed.dropped).toBe(keys.length - kept.length);
        expect(changed.count).toBe(kept.length);
        expect([changed.firstKey, changed.lastKey]).toEqual([kept[0], kept.at(-1)]);
        expect(changed.storedLastKey).toBe(keys.at(-1));
        // The same bytes as the kept postings encoded afresh.
        expect([...changed.bytes]).toEqual([...encodePostings(listOf(kept))]);
        expect(decoded(changed.bytes)).toEqual(listOf(kept));
      }),
      { numRuns: 500 },
    );
  });

  it("leaves a block that holds none of the keys byte for byte as it was", () => {
    const block = encodePostings(listOf([2, 4, 6]));
    expect([...(dropFromBlock(block, Int32Array.from([1, 3, 7]))?.bytes ?? [])]).toEqual([...block]);
    expect(dropFromBlock(block, new Int32Array(0))?.dropped).toBe(0);
  });

  it("calls bytes that end inside a posting, or run a key past 2^31 - 1, not a block", () => {
    const block = encodePostings(listOf([3, 9, 400]));
    expect(dropFromBlock(block.subarray(0, block.length - 1), Int32Array.from([9]))).toBeUndefined();
    const past = Buffer.concat([encodePostings(listOf([2 ** 31 - 1])), encodePostings(listOf([1]))]);
    expect(dropFromBlock(past, Int32Array.from([1]))).toBeUndefined();
  });
});

describe("lastKeyOfBlock and encodePostings after a key", () => {
  it("appends bytes that decode, after the block, to the postings appended", () => {
    fc.assert(
      fc.property(keysArbitrary, fc.nat(299), (keys, cut) => {
        const at = Math.min(cut, keys.length - 1) + 1;
        const head = listOf(keys.slice(0, at));
        const tail = listOf(keys.slice(at));
        const block = encodePostings(head);
        const last = lastKeyOfBlock(block, at);
        expect(last).toBe(keys[at - 1]);
        const appended = Buffer.concat([block, encodePostings(tail, 0, tail.keys.length, last)]);
        expect(decoded(appended)).toEqual(listOf(keys));
      }),
      { numRuns: 300 },
    );
  });

  it("calls a block that holds another number of postings than its count not readable", () => {
    const block = encodePostings(listOf([3, 9, 400]));
    expect(lastKeyOfBlock(block, 3)).toBe(400);
    expect(lastKeyOfBlock(block, 2)).toBeUndefined();
    expect(lastKeyOfBlock(block.subarray(0, block.length - 1), 3)).toBeUndefined();
    expect(lastKeyOfBlock(new Uint8Array(0), 0)).toBeUndefined();
  });
});
