import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { splitPattern } from "./split-patterns.js";
import type { TokenizerName } from "./tokenizer.js";

const gptTokenizer = createRequire(import.meta.url)("gpt-tokenizer/cjs/encodingParams/constants") as Record<
  string,
  RegExp
>;

const theirs: Record<TokenizerName, string> = {
  cl100k_base: "CL100K_TOKEN_SPLIT_REGEX",
  o200k_base: "O200K_TOKEN_SPLIT_REGEX",
  r50k_base: "R50K_TOKEN_SPLIT_REGEX",
};

describe("splitPattern", () => {
  it.each(Object.entries(theirs))(
    "%s is the installed gpt-tokenizer's %s, global and Unicode",
    (name, key) => {
      const ours = splitPattern(name as TokenizerName);
      const installed = gptTokenizer[key] as RegExp;
      expect(ours.source).toBe(installed.source);
      expect(ours.flags).toBe("gu");
      expect(installed.flags.replace("g", "")).toBe("u");
    },
  );

  it("gives a new object each call, so one caller's lastIndex is not another's", () => {
    const first = splitPattern("cl100k_base");
    first.lastIndex = 5;
    expect(splitPattern("cl100k_base").lastIndex).toBe(0);
    expect(splitPattern("cl100k_base")).not.toBe(first);
  });
});
