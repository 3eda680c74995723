import { describe, expect, it } from "vitest";
import { MIN_SECRET_LENGTH, REDACTED, scrubSecrets } from "../errors/scrub-secrets.js";
import { createRedactor, redactingSink } from "./io.js";

describe("createRedactor", () => {
  it("replaces every occurrence of every secret, longest first", () => {
    const redact = createRedactor(["sk-test-ABCDEFGH", "sk-test-ABCDEFGH-longer", undefined]);
    expect(redact("a sk-test-ABCDEFGH-longer b sk-test-ABCDEFGH")).toBe("a [REDACTED] b [REDACTED]");
  });

  it("ignores secrets too short to be keys", () => {
    expect(createRedactor(["abc", ""])("abc")).toBe("abc");
  });

  it("redacts what goes through a sink", () => {
    const written: string[] = [];
    const sink = redactingSink({ write: (text) => written.push(text) }, createRedactor(["sk-live-12345678"]));
    sink.write("Authorization: Bearer sk-live-12345678\n");
    expect(written).toEqual(["Authorization: Bearer [REDACTED]\n"]);
  });

  it("has the library's placeholder and threshold, and leaves quoted Bearer and sk- text in answers alone", () => {
    const long = "x".repeat(MIN_SECRET_LENGTH);
    const short = "y".repeat(MIN_SECRET_LENGTH - 1);
    const text = `${long} ${short} Bearer token-in-the-docs`;
    const redact = createRedactor([long, short]);
    expect(redact(text)).toBe(`${REDACTED} ${short} Bearer token-in-the-docs`);
    // The library's scrubber (errors, logs, spans) replaces and skips the same known secrets, and the patterns too.
    expect(scrubSecrets(text, [long, short])).toBe(`${REDACTED} ${short} Bearer ${REDACTED}`);
  });
});
