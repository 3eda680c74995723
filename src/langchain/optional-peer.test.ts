import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

// A fresh process in which resolving any @langchain/* module throws, as for a user without the peer installed.
const hooks = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith("@langchain/")) throw new Error("@langchain/core is not installed");
  return next(specifier, context);
}`;
const probe = `
import { register } from "node:module";
register("data:text/javascript,${encodeURIComponent(hooks)}");
const ragsynth = await import("./src/index.ts");
let subpath = "loaded";
try { await import("./src/langchain/index.ts"); } catch (error) { subpath = error.message; }
console.log(JSON.stringify({ root: typeof ragsynth.getResponseSynthesizer, subpath }));
`;

describe("@langchain/core stays an optional peer", () => {
  it("the root import works without it; only the ragsynth/langchain subpath needs it", () => {
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", probe], {
      cwd: root,
      encoding: "utf8",
    });
    const result = JSON.parse(output.trim().split("\n").at(-1) as string);
    expect(result.root).toBe("function");
    expect(result.subpath).toMatch(/@langchain\/core is not installed/); // the hook is really in the way
  });
});
