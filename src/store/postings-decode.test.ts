import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodePostings, type PostingsArrays } from "./postings-codec.js";
import { decodeBlocks, wasmDecodeBlocks } from "./postings-decode.js";

/** What the JavaScript decoder makes of the blocks: the same arrays, or the first block's damage. */
const javascriptDecode = (blocks: readonly { count: number; block: Uint8Array }[]) =>
  decodeBlocks(blocks, { javascript: true });

const plain = (decoded: PostingsArrays | string | undefined) =>
  typeof decoded === "object"
    ? { keys: [...decoded.keys], frequencies: [...decoded.frequencies], lengths: [...decoded.lengths] }
    : decoded;

// Postings with gaps and fields of every varint width, keys up to 2^31 - 1.
const postings = fc
  .uniqueArray(fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 })), {
    minLength: 1,
    maxLength: 60,
  })
  .chain((keys) =>
    fc.record({
      keys: fc.constant(keys.sort((left, right) => left - right)),
      frequencies: fc.array(fc.integer({ min: 1, max: 2 ** 31 - 1 }), {
        minLength: keys.length,
        maxLength: keys.length,
      }),
      lengths: fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), {
        minLength: keys.length,
        maxLength: keys.length,
      }),
    }),
  );

describe("wasmDecodeBlocks", () => {
  it("decodes a term's blocks as the JavaScript decoder does", () => {
    fc.assert(
      fc.property(fc.array(postings, { minLength: 1, maxLength: 5 }), (lists) => {
        const blocks = lists.map((list) => ({ count: list.keys.length, block: encodePostings(list) }));
        const wasm = wasmDecodeBlocks(blocks);
        expect(typeof wasm).toBe("object");
        expect(plain(wasm)).toEqual(plain(javascriptDecode(blocks)));
        expect(plain(wasm)).toEqual({
          keys: lists.flatMap((list) => list.keys),
          frequencies: lists.flatMap((list) => list.frequencies),
          lengths: lists.flatMap((list) => list.lengths),
        });
      }),
      { numRuns: 300 },
    );
  });

  it("says the same of damaged bytes: wrong counts, cut or changed bytes, overlong varints, keys past 2^31 - 1", () => {
    fc.assert(
      fc.property(
        postings,
        fc.integer({ min: -2, max: 2 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
        fc.nat(),
        (list, countShift, changes, cut) => {
          const bytes = Uint8Array.from(encodePostings(list));
          for (const [at, value] of changes) bytes[at % bytes.length] = value;
          const block = cut % 3 === 0 ? bytes.subarray(0, cut % bytes.length) : bytes;
          const blocks = [{ count: Math.max(0, list.keys.length + countShift), block }];
          expect(plain(wasmDecodeBlocks(blocks))).toEqual(plain(javascriptDecode(blocks)));
        },
      ),
      { numRuns: 1_000 },
    );
    // The cases by name, as decodePostingsInto's tests give them.
    const sixBytes = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 1, 1]);
    expect(wasmDecodeBlocks([{ count: 1, block: sixBytes }])).toBe("not readable");
    const pastKeys = encodePostings({ keys: [2 ** 31 - 1, 2 ** 32], frequencies: [1, 1], lengths: [1, 1] });
    expect(wasmDecodeBlocks([{ count: 2, block: pastKeys }])).toBe("not readable");
    const two = encodePostings({ keys: [1, 2], frequencies: [1, 1], lengths: [1, 1] });
    expect(wasmDecodeBlocks([{ count: 1, block: two }])).toBe("more postings than its count");
  });

  it("leaves counts that are not whole numbers to the caller", () => {
    expect(wasmDecodeBlocks([{ count: -1, block: new Uint8Array(0) }])).toBeUndefined();
    expect(wasmDecodeBlocks([{ count: 1.5, block: new Uint8Array(0) }])).toBeUndefined();
  });
});
