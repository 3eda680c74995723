import { describe, expect, it } from "vitest";
import { createRedactor, redactingSink } from "./io.js";

describe("createRedactor", () => {
  it("replaces every occurrence of every secret, longest first", () => {
    const redact = createRedactor(["sk-test-ABCDEFGH", "sk-test-ABCDEFGH-longer", undefined]);
    expect(redact("a sk-test-ABCDEFGH-longer b sk-test-ABCDEFGH")).toBe("a [redacted] b [redacted]");
  });

  it("ignores secrets too short to be keys", () => {
    expect(createRedactor(["abc", ""])("abc")).toBe("abc");
  });

  it("redacts what goes through a sink", () => {
    const written: string[] = [];
    const sink = redactingSink({ write: (text) => written.push(text) }, createRedactor(["sk-live-12345678"]));
    sink.write("Authorization: Bearer sk-live-12345678\n");
    expect(written).toEqual(["Authorization: Bearer [redacted]\n"]);
  });
});
