// After `tsc`: bundles each published entry point (the root, ./extend, ./testing, ./langchain and the bin)
// with esbuild, in place, so that `import("ragsynth")` reads a few files instead of ~180 (each file costs a
// read, a parse and a link; bundled, the import measured about a third of the cost over bare Node).
// Dependencies stay external (loaded from node_modules as before, the optional ones on first use) and types
// stay tsc's .d.ts files; tsc's other .js files are removed, as nothing imports them any more (they would only
// add to the installed size).
//
// Two builds. The library entry points share code through chunks in dist/chunks. The bin is built on its own:
// dist/cli/bin.js (argument parsing, --help, --version) and dist/cli/commands.js (every command, loaded on the
// first command), with what both use in one shared chunk. Built together with the library, `ragsynth ask`
// loaded 18 files (the chunks its code shares with the four library entry points), and Node 20 pays about 2 ms
// for each ES module file; on its own it loads 3 (valgrind, whole process of the offline `ask examples/docs`:
// 1,656 M -> 1,501 M instructions), and `import("ragsynth")` 6 files instead of 13 (675 M -> 647 M). The price
// is the library code the commands use, in the package twice: the bin's source maps leave out the sources'
// text (stack traces still name the src/*.ts lines; src/ is not published), so that costs +0.45 MB unpacked.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const libraryEntryPoints = ["index.js", "extend/index.js", "testing/index.js", "langchain/index.js"];
const cliEntryPoints = ["cli/bin.js", "cli/commands.js"];

const common = {
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
};

rmSync(join(dist, "chunks"), { recursive: true, force: true });
await build({ ...common, entryPoints: libraryEntryPoints.map((entry) => join(dist, entry)) });
await build({
  ...common,
  entryPoints: cliEntryPoints.map((entry) => join(dist, entry)),
  sourcesContent: false,
});

const entryPoints = [...libraryEntryPoints, ...cliEntryPoints];
const kept = new Set(entryPoints.flatMap((entry) => [entry, `${entry}.map`]));
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const path = join(entry.parentPath, entry.name);
  const relative = path.slice(dist.length + 1).replaceAll("\\", "/");
  if (!entry.isFile() || relative.startsWith("chunks/") || kept.has(relative)) continue;
  if (relative.endsWith(".js") || relative.endsWith(".js.map")) rmSync(path);
}
