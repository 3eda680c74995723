import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodePostings } from "./postings-codec.js";
import { dropKeys, readPostings } from "./sqlite-postings.js";

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

  it("calls a block damaged when it holds more or fewer postings than its count, or ends inside a posting", () => {
    const block = encodePostings(first);
    const read = (count: number, bytes: Uint8Array) => () => readPostings([{ count, block: bytes }], "at /x");
    expect(read(2, block)).toThrow(/holds a postings block that holds more postings than its count/);
    expect(read(4, block)).toThrow(/holds a postings block that is not readable/);
    expect(read(3, block.subarray(0, block.length - 1))).toThrow(/not readable/);
    expect(read(1, Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 1, 1]))).toThrow(/not readable/);
    expect(read(3, block)).not.toThrow();
  });
});

describe("dropKeys", () => {
  it("takes exactly the postings of the keys gone, keeping the others in order with their fields", () => {
    const keysAndGone = fc.uniqueArray(fc.integer({ min: 0, max: 5_000 }), { maxLength: 300 }).chain((keys) =>
      fc.tuple(
        fc.constant([...keys].sort((a, b) => a - b)),
        // Keys to drop: some held by the block, some not (another block's), in any number.
        fc.uniqueArray(fc.oneof(fc.constantFrom(...(keys.length > 0 ? keys : [0])), fc.nat(5_000)), {
          maxLength: 40,
        }),
      ),
    );
    fc.assert(
      fc.property(keysAndGone, ([keys, gone]) => {
        const list = {
          keys: [...keys],
          frequencies: keys.map((key) => key * 3),
          lengths: keys.map((key) => key + 7),
        };
        const goneSet = new Set(gone);
        const kept = keys.filter((key) => !goneSet.has(key));
        const dropped = dropKeys(list, Int32Array.from(gone).sort());
        expect(dropped).toBe(keys.length - kept.length);
        expect(list.keys).toEqual(kept);
        expect(list.frequencies).toEqual(kept.map((key) => key * 3));
        expect(list.lengths).toEqual(kept.map((key) => key + 7));
      }),
      { numRuns: 500 },
    );
  });

  it("leaves a block that holds none of the keys as it was", () => {
    const list = { keys: [2, 4, 6], frequencies: [1, 1, 1], lengths: [5, 5, 5] };
    expect(dropKeys(list, Int32Array.from([1, 3, 7]))).toBe(0);
    expect(dropKeys(list, new Int32Array(0))).toBe(0);
    expect(list.keys).toEqual([2, 4, 6]);
  });
});
