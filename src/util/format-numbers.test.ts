import { describe, expect, it } from "vitest";
import { formatCount, plural } from "./format-numbers.js";

describe("formatCount", () => {
  it("prints rounded counts with a comma every three digits, as Intl.NumberFormat('en-US') does", () => {
    const intl = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
    for (const value of [0, 7, 999, 1000, 12_345, 1_234_567, 987_654_321_012, 1234.5, 999.5, -1234, -0.4]) {
      expect(formatCount(value)).toBe(intl.format(value).replace(/^-0$/, "0"));
    }
    expect(plural(1200, "token")).toBe("1,200 tokens");
  });
});
