import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

// In a fresh process: importing the package (root and ragsynth/extend) loads no BPE rank table; the first count
// loads exactly one.
const probe = `
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const loaded = () => Object.keys(require.cache).filter((path) => /gpt-tokenizer[\\\\/].*bpeRanks/.test(path)).map((path) => path.replace(/.*bpeRanks[\\\\/]/, ""));
await import("./src/index.ts");
const extend = await import("./src/extend/index.ts");
const afterImport = loaded();
extend.resolveTokenizer("cl100k_base").count("hello world");
console.log(JSON.stringify({ afterImport, afterCount: loaded() }));
`;

describe("tokenizers load lazily", () => {
  it("importing ragsynth loads no rank table; the first cl100k count loads only cl100k", () => {
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], {
      cwd: root,
      encoding: "utf8",
    });
    const { afterImport, afterCount } = JSON.parse(output.trim().split("\n").at(-1) as string);
    expect(afterImport).toEqual([]);
    expect(afterCount).toEqual(["cl100k_base.js"]);
  });
});
