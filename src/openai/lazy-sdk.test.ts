import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "ragsynth-lazy-sdk-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// A module resolve hook (it runs on the loader thread) appends every resolved URL inside node_modules/openai
// to a file, so the probe can tell whether the SDK was loaded at each step.
const hooks = `
import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (/[\\\\/]node_modules[\\\\/]openai[\\\\/]/.test(result.url)) appendFileSync(log, result.url + "\\n");
  return result;
}`;

const probe = (log: string) => `
import { register } from "node:module";
import { existsSync, readFileSync } from "node:fs";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hooks)}), { data: { log: ${JSON.stringify(log)} } });
const loaded = () => existsSync(${JSON.stringify(log)}) && readFileSync(${JSON.stringify(log)}, "utf8").length > 0;
const ragsynth = await import("./src/index.ts");
const afterImport = loaded();
const llm = new ragsynth.OpenAILike({ model: "m", baseURL: "http://127.0.0.1:9/v1", maxRetries: 0 });
const afterConstruct = loaded();
await llm.complete("hi").catch(() => {});
console.log(JSON.stringify({ afterImport, afterConstruct, afterCall: loaded() }));
`;

describe("the openai SDK loads lazily", () => {
  it("importing ragsynth and building an OpenAILike load no openai code; the first request does", () => {
    const output = execFileSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", probe(join(scratch, "resolved.log"))],
      { cwd: root, encoding: "utf8" },
    );
    const result = JSON.parse(output.trim().split("\n").at(-1) as string);
    expect(result).toEqual({ afterImport: false, afterConstruct: false, afterCall: true });
  });
});
