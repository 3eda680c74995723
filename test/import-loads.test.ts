import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
// Every package ragsynth may load: the format readers' libraries (htmlparser2, unpdf, mammoth, markdown-it,
// micromark, csv-parse, fflate…), the walk's (ignore, picomatch), the store's, the tokenizer's and the optional peers.
const packages = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)];

// In a fresh process, a module resolve hook (on the loader thread) notes every package file resolved, and the
// process adds the CommonJS files in require's cache. Counts only, never times: what is not loaded costs nothing.
const probe = (steps: string) => `
import { createRequire, register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const resolved = [];
port1.on("message", (url) => resolved.push(url));
port1.unref();
const hooks = \`
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}\`;
register("data:text/javascript," + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
const packages = ${JSON.stringify(packages)};
const loaded = () => {
  const files = [...resolved, ...Object.keys(createRequire(import.meta.url).cache)].map((file) => file.replaceAll("\\\\", "/"));
  return packages.filter((name) => files.some((file) => file.includes("/node_modules/" + name + "/")));
};
${steps}
`;

function run(steps: string): Record<string, string[]> {
  const output = execFileSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", probe(steps)],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
  return JSON.parse(output.trim().split("\n").at(-1) as string);
}

describe("what importing ragsynth loads", () => {
  it("the root and ragsynth/extend load none of the dependencies; the first folder walk loads ignore, a glob picomatch", () => {
    const result = run(`
const { readDocuments } = await import("./src/index.ts");
await import("./src/extend/index.ts");
await new Promise((done) => setImmediate(done));
const afterImport = loaded();
await readDocuments(["examples/docs"]);
await new Promise((done) => setImmediate(done));
const afterWalk = loaded();
await readDocuments(["examples/docs"], { include: ["**/*.md"] });
await new Promise((done) => setImmediate(done));
console.log(JSON.stringify({ afterImport, afterWalk, afterGlob: loaded() }));
`);
    expect(result.afterImport).toEqual([]);
    expect(result.afterWalk).toContain("ignore");
    expect(result.afterWalk).not.toContain("picomatch");
    expect(result.afterGlob).toContain("picomatch");
  });
});
