// Assembles each WebAssembly module's text (src/store/<name>.wat) with wabt (a dev dependency) and writes its bytes,
// base64, between the `assemble-wasm:begin` / `assemble-wasm:end` lines of src/store/<name>.ts. The package ships
// the bytes, not wabt; test/assemble-wasm.test.ts checks that they are the .wat files'.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import wabtInit from "wabt";

const store = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "store");

/** The modules: each `src/store/<name>.wat`, whose bytes go into `src/store/<name>.ts`. */
export const WASM_MODULES = ["sign-code-scan", "bm25-rare-sums", "postings-decode"];

/** The base64 of the module `wat` (its text) assembles to. */
export async function assembleBase64(wat, name = "module.wat") {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat(name, wat);
  try {
    parsed.validate();
    return Buffer.from(parsed.toBinary({}).buffer).toString("base64");
  } finally {
    parsed.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of WASM_MODULES) {
    const base64 = await assembleBase64(readFileSync(join(store, `${name}.wat`), "utf8"), `${name}.wat`);
    const target = join(store, `${name}.ts`);
    const source = readFileSync(target, "utf8");
    const block = /(\/\/ assemble-wasm:begin\n)[\s\S]*?(\/\/ assemble-wasm:end)/;
    if (!block.test(source)) throw new Error(`${target} has no assemble-wasm:begin/end lines`);
    writeFileSync(target, source.replace(block, `$1const MODULE_BASE64 =\n  "${base64}";\n$2`));
    console.log(`${name}.ts: ${Buffer.from(base64, "base64").length} bytes`);
  }
}
