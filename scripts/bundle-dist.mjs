// After `tsc`: bundles each published entry point (the root, ./extend, ./testing, ./langchain, ./batch and the bin)
// with esbuild, in place, so that `import("ragsynth")` reads a few files instead of ~180 (each file costs a
// read, a parse and a link; bundled, the import measured about a third of the cost over bare Node).
// Dependencies stay external (loaded from node_modules as before, the optional ones on first use) and types
// stay tsc's .d.ts files; tsc's other .js files are removed, as nothing imports them any more (they would only
// add to the installed size).
//
// The library entry points share code through chunks in dist/chunks. The CLI is built on its own, in two
// files: dist/cli/bin.js (ESM, small: it only loads the rest) and dist/cli/cli.cjs (src/cli/main.ts and every
// command, one CommonJS bundle). CommonJS because Node 20 has no compile cache for modules: the bin runs cli.cjs
// through node:vm with V8's compiled code kept in the user's cache folder (src/cli/load-cli.ts), which an ES
// module cannot use. The price is the library code the commands use, in the package twice: the CLI's source
// maps leave out the sources' text (stack traces still name the src/*.ts lines; src/ is not published).
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const libraryEntryPoints = [
  "index.js",
  "extend/index.js",
  "testing/index.js",
  "langchain/index.js",
  "batch/index.js",
];

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
await build({
  ...common,
  entryPoints: [join(dist, "cli/bin.js")],
  splitting: false,
  sourcesContent: false,
});
// Dependencies that ship only ES modules: cli.cjs cannot require() them on Node before 20.19, so they are bundled
// into it (the library's ESM entry points import them from node_modules as usual).
const ESM_ONLY =
  /^(mdast-util-[^/]*|micromark[^/]*|unist-util-[^/]*|decode-named-character-reference|character-entities[^/]*|devlop|ccount|escape-string-regexp|markdown-table|longest-streak|zwitch|fault|format)(\/|$)/;
// markdown-it and its dependencies (CommonJS) are bundled too, so that they run from the CLI's V8 code cache: an
// `ask` that reads a changed Markdown file compiled them from source every time (~10-15 ms). The library loads them
// lazily through createRequire (src/reader/formats/markdown-it-loader.ts); in the CLI that file's body becomes
// require() calls, which esbuild bundles and still runs only on the first Markdown parse.
const MARKDOWN_IT = /^(markdown-it|markdown-it-footnote|linkify-it|mdurl|punycode\.js|uc\.micro)(\/|$)/;
const MARKDOWN_IT_LOADER = /[\\/]reader[\\/]formats[\\/]markdown-it-loader\.js$/;
const bundleEsmOnly = {
  name: "bundle-esm-only",
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      ESM_ONLY.test(args.path) || MARKDOWN_IT.test(args.path)
        ? undefined
        : { path: args.path, external: true },
    );
    builder.onLoad({ filter: MARKDOWN_IT_LOADER }, () => ({
      contents:
        'export function loadMarkdownIt() { return { markdownIt: require("markdown-it"), footnote: require("markdown-it-footnote") }; }',
      loader: "js",
    }));
  },
};
await build({
  ...common,
  packages: undefined,
  plugins: [bundleEsmOnly],
  entryPoints: [join(dist, "cli/main.js")],
  outdir: undefined,
  outbase: undefined,
  outfile: join(dist, "cli/cli.cjs"),
  splitting: false,
  format: "cjs",
  // import.meta.url as the ES modules had it (createRequire, the package.json next to dist/).
  define: { "import.meta.url": "__ragsynthImportMetaUrl" },
  banner: { js: 'var __ragsynthImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  // Optional dependencies load on first use through require(): Node 20 loses a vm script's dynamic-import
  // callback when the script comes from a code cache (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), so no import()
  // may stay in cli.cjs. Each of them ships CommonJS.
  supported: { "dynamic-import": false },
  sourcesContent: false,
});

// An index build's worker threads run dist/index-store/split-worker.js (src/index-store/split-pool.ts finds it
// beside dist/chunks and dist/cli): one file of its own, so a thread loads the splitter, not the library.
await build({ ...common, entryPoints: [join(dist, "index-store/split-worker.js")], splitting: false });

// The library entry points last: they are bundled in place, so a CLI bundle built after them would read an entry
// (the CLI imports ../batch/index.js) as esbuild's output, with its shared chunks, instead of tsc's.
await build({ ...common, entryPoints: libraryEntryPoints.map((entry) => join(dist, entry)) });

// The guard for the note above: an import() left in cli.cjs would fail once its code comes from the cache.
const cli = readFileSync(join(dist, "cli/cli.cjs"), "utf8");
if (/\bimport\(/.test(cli))
  throw new Error("dist/cli/cli.cjs has an import(): see supported in scripts/bundle-dist.mjs");
// And for markdown-it's: a require() of it left in cli.cjs would load it from node_modules, outside the code cache.
if (
  !/var require_markdown_it\w* = __commonJS/.test(cli) ||
  /(require|load)\("markdown-it(-footnote)?"\)/.test(cli)
)
  throw new Error("dist/cli/cli.cjs does not bundle markdown-it: see MARKDOWN_IT in scripts/bundle-dist.mjs");

const entryPoints = [...libraryEntryPoints, "cli/bin.js", "cli/cli.cjs", "index-store/split-worker.js"];
const kept = new Set(entryPoints.flatMap((entry) => [entry, `${entry}.map`]));
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  const path = join(entry.parentPath, entry.name);
  const relative = path.slice(dist.length + 1).replaceAll("\\", "/");
  if (!entry.isFile() || relative.startsWith("chunks/") || kept.has(relative)) continue;
  if (relative.endsWith(".js") || relative.endsWith(".js.map")) rmSync(path);
}
