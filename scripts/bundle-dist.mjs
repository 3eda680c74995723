// After `tsc`: bundles each published entry point (the root, ./extend, ./testing, ./langchain and the bin)
// with esbuild, in place, sharing code through chunks in dist/chunks, so that `import("ragsynth")` reads a few
// files instead of ~180 (each file costs a read, a parse and a link; bundled, the import measured about a
// third of the cost over bare Node). Dependencies stay external (loaded from node_modules as before, the
// optional ones on first use) and types stay tsc's .d.ts files; tsc's other .js files are removed, as nothing
// imports them any more (they would only add to the installed size).
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const entryPoints = ["index.js", "extend/index.js", "testing/index.js", "langchain/index.js", "cli/bin.js"];

rmSync(join(dist, "chunks"), { recursive: true, force: true });
await build({
  entryPoints: entryPoints.map((entry) => join(dist, entry)),
  outdir: dist,
  outbase: dist,
  // One folder below dist/, like dist/cli/: `new URL("../../package.json", import.meta.url)` still finds the
  // package's manifest, and createRequire(import.meta.url) still finds node_modules.
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  allowOverwrite: true,
  // Maps through tsc's maps back to src/*.ts, so stack traces still name the source lines.
  sourcemap: true,
  logLevel: "warning",
});

const kept = new Set(entryPoints.flatMap((entry) => [entry, `${entry}.map`]));
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const path = join(entry.parentPath, entry.name);
  const relative = path.slice(dist.length + 1).replaceAll("\\", "/");
  if (!entry.isFile() || relative.startsWith("chunks/") || kept.has(relative)) continue;
  if (relative.endsWith(".js") || relative.endsWith(".js.map")) rmSync(path);
}
