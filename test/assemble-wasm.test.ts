import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { assembleBase64 } from "../scripts/assemble-wasm.mjs";
import { SIGN_CODE_SCAN_WASM } from "../src/store/sign-code-scan.js";

describe("scripts/assemble-wasm.mjs", () => {
  it("the package ships the bytes of sign-code-scan.wat (run the script after editing it)", async () => {
    const wat = readFileSync(new URL("../src/store/sign-code-scan.wat", import.meta.url), "utf8");
    expect(SIGN_CODE_SCAN_WASM).toBe(await assembleBase64(wat));
  });

  it("fails on a module that does not validate", async () => {
    await expect(assembleBase64("(module (func (result i32) (i64.const 1)))")).rejects.toThrow();
  });
});
