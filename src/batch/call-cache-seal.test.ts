import { describe, expect, it } from "vitest";
import { openCachedCall, sealCachedCall } from "./call-cache-seal.js";

describe("call-cache entry checksums", () => {
  it("replayed usage is checked as live usage: a correctly summed entry with absurd counts is counted by the tokenizer", () => {
    const sealed = sealCachedCall("k", {
      text: "t",
      usage: { promptTokens: -5, completionTokens: 1e300, retries: -1 },
    });
    const opened = openCachedCall("k", sealed);
    expect(opened).toEqual({
      entry: { text: "t", usage: { ignoredUsage: ["prompt_tokens: -5", "completion_tokens: 1e+300"] } },
    });
  });

  it("an entry moved to another key, or without a checksum, is refused", () => {
    const sealed = sealCachedCall("k1", { text: "t" });
    expect(openCachedCall("k2", sealed)).toEqual({ rejected: "checksum" });
    expect(openCachedCall("k1", { text: "t" })).toEqual({ rejected: "shape" });
    expect(openCachedCall("k1", sealed)).toEqual({ entry: { text: "t" } });
  });

  it("an HMAC-sealed entry opens with its key only", () => {
    const sealed = sealCachedCall("k", { text: "t" }, "key-one-1234");
    expect(sealed.sum).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(openCachedCall("k", sealed, "key-one-1234")).toEqual({ entry: { text: "t" } });
    expect(openCachedCall("k", sealed, "key-two-5678")).toEqual({ rejected: "checksum" });
    expect(openCachedCall("k", sealed)).toEqual({ rejected: "checksum" });
  });
});
