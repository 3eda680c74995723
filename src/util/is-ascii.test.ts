import { describe, expect, it } from "vitest";
import { isAscii } from "./is-ascii.js";

describe("isAscii", () => {
  it("is false from the first character above ASCII on", () => {
    expect(isAscii("plain text\n\t~")).toBe(true);
    expect(isAscii("")).toBe(true);
    expect(isAscii("café")).toBe(false);
    expect(isAscii("a\u0080")).toBe(false);
    expect(isAscii("\u0000\u007f")).toBe(true);
    expect(isAscii("x\ud83d")).toBe(false);
    expect(isAscii("😀")).toBe(false);
  });
});
