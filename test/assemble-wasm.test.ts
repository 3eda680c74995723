import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { assembleBase64, WASM_MODULES } from "../scripts/assemble-wasm.mjs";
import { BM25_RARE_SUMS_WASM } from "../src/store/bm25-rare-sums.js";
import { POSTINGS_DECODE_WASM } from "../src/store/postings-decode.js";
import { SIGN_CODE_SCAN_WASM } from "../src/store/sign-code-scan.js";

describe("scripts/assemble-wasm.mjs", () => {
  // Every module the script assembles, with the bytes the package ships for it.
  const shipped: Record<string, string> = {
    "sign-code-scan": SIGN_CODE_SCAN_WASM,
    "bm25-rare-sums": BM25_RARE_SUMS_WASM,
    "postings-decode": POSTINGS_DECODE_WASM,
  };
  for (const name of WASM_MODULES as string[]) {
    it(`the package ships the bytes of ${name}.wat (run the script after editing it)`, async () => {
      const wat = readFileSync(new URL(`../src/store/${name}.wat`, import.meta.url), "utf8");
      expect(shipped[name]).toBe(await assembleBase64(wat, `${name}.wat`));
    });
  }

  it("fails on a module that does not validate", async () => {
    await expect(assembleBase64("(module (func (result i32) (i64.const 1)))")).rejects.toThrow();
  });
});
