import { describe, expect, it } from "vitest";
import { oneLine } from "./one-line.js";

describe("oneLine", () => {
  it("writes line breaks as JSON escapes them, and leaves text without one as it is", () => {
    expect(oneLine("a.md\n  [2]  9.999  official.md")).toBe("a.md\\u000a  [2]  9.999  official.md");
    expect(oneLine("a\r\nb\u2028c\u2029d")).toBe("a\\u000d\\u000ab\\u2028c\\u2029d");
    const plain = "guide.md:12–30 › Setup\tTabs stay";
    expect(oneLine(plain)).toBe(plain);
  });
});
