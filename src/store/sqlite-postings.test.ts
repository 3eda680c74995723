import { describe, expect, it } from "vitest";
import { encodePostings } from "./postings-codec.js";
import { readPostings } from "./sqlite-postings.js";

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
