// Figure: the bundled size of a small app (OpenAILike + compact, o200k) built with esbuild and gzipped, beside the
// same app on llamaindex (+ @llamaindex/openai); the figure that matters for edge and serverless deploys.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { BENCH_DIR, DIST_INDEX, NOT_BUILT, ROOT_DIR } from "../lib/libs.mjs";
import { fmt, fmtRatio, target } from "../lib/report.mjs";

const APPS = {
  ragsynth: `import { getResponseSynthesizer, OpenAILike, PromptHelper, TextNode } from "ragsynth";
const llm = new OpenAILike({ model: "gpt-4o-mini" });
const promptHelper = new PromptHelper({ contextWindow: 128000, numOutput: 512, tokenizer: "o200k_base" });
const synthesizer = getResponseSynthesizer({ llm, responseMode: "compact", promptHelper });
export default async function answer(query, texts) {
  const nodes = texts.map((text) => ({ node: new TextNode({ text }) }));
  return String((await synthesizer.synthesize({ query, nodes })).response);
}`,
  // ragsynth loads its rank table with a runtime require (so importing it loads none); a bundle has to ship the
  // o200k table beside it. Measured as gpt-tokenizer's own o200k entry point.
  o200k: `export { countTokens } from "gpt-tokenizer/encoding/o200k_base";`,
  peer: `import { OpenAI } from "@llamaindex/openai";
import { getResponseSynthesizer, PromptHelper, TextNode } from "llamaindex";
const llm = new OpenAI({ model: "gpt-4o-mini" });
const promptHelper = new PromptHelper({ contextWindow: 128000, numOutput: 512 });
const synthesizer = getResponseSynthesizer("compact", { llm, promptHelper });
export default async function answer(query, texts) {
  const nodes = texts.map((text) => ({ node: new TextNode({ text }) }));
  return String((await synthesizer.synthesize({ query, nodes }, false)).message.content);
}`,
};

async function bundle(esbuild, dir, name) {
  const entry = join(dir, `${name}.mjs`);
  writeFileSync(entry, APPS[name]);
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "node",
    write: false,
    metafile: true,
    logLevel: "silent",
    alias: { ragsynth: DIST_INDEX },
    nodePaths: [join(name === "peer" ? BENCH_DIR : ROOT_DIR, "node_modules")],
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.values(result.metafile.outputs)[0].inputs;
  const byPackage = {};
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const key = match ? match[1] : "ragsynth";
    byPackage[key] = (byPackage[key] ?? 0) + bytesInOutput;
  }
  const top = Object.entries(byPackage)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([key, bytes]) => `${key} ${fmt(bytes / 1e3)} kB`)
    .join(", ");
  return { raw: code.length, gzip: gzipSync(code, { level: 9 }).length, top };
}

export async function sizeFigure() {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    return {
      id: "size",
      title: "bundled size",
      error: "esbuild is missing: npm ci --prefix bench --ignore-scripts",
      targets: [],
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "ragsynth-bench-size-"));
  try {
    const app = await bundle(esbuild, dir, "ragsynth");
    const table = await bundle(esbuild, dir, "o200k");
    const peer = await bundle(esbuild, dir, "peer");
    const ours = app.gzip + table.gzip;
    const kb = (bytes) => `${fmt(bytes / 1e3)} kB`;
    return {
      id: "size",
      title:
        "bundled size of a small app (OpenAILike + compact, o200k): esbuild --bundle --minify (ESM, node), gzip -9",
      headers: ["bundle", "minified", "gzipped", "largest parts (minified)"],
      rows: [
        ["ragsynth app", kb(app.raw), kb(app.gzip), app.top],
        ["+ the o200k rank table it loads at run time", kb(table.raw), kb(table.gzip), table.top],
        ["ragsynth total", kb(app.raw + table.raw), kb(ours), ""],
        ["llamaindex 0.12.1 + @llamaindex/openai 0.4.22 app", kb(peer.raw), kb(peer.gzip), peer.top],
        ["ragsynth ÷ llamaindex", fmtRatio((app.raw + table.raw) / peer.raw), fmtRatio(ours / peer.gzip), ""],
      ],
      notes: [
        "ragsynth is bundled from dist/; its tokenizer table is required lazily at run time (importing ragsynth loads none), so esbuild leaves it out and the app must ship gpt-tokenizer's o200k table beside it: counted here as gpt-tokenizer's own o200k entry point.",
        `The o200k rank table alone is ${kb(table.gzip)} of ragsynth's ${kb(ours)} gzipped (${Math.round((100 * table.gzip) / ours)} %). The llamaindex app bundles js-tiktoken with every encoding's ranks.`,
        "zod (an optional peer, imported only for structured output) and the openai SDK (imported on the first request) are inside the ragsynth app bundle.",
      ],
      targets: [
        target(
          "bundled size ≤ 1/3 of the same app on llamaindex (gzip)",
          "≤ 0.33×",
          fmtRatio(ours / peer.gzip),
          ours <= peer.gzip / 3,
        ),
      ],
      json: { app, table, peer },
    };
  } catch (error) {
    return { id: "size", title: "bundled size", error: `${NOT_BUILT}? ${error.message}`, targets: [] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
