#!/usr/bin/env node
// The benchmark entry point: `npm run bench [-- --quick] [-- --json file] [-- --only a,b] [-- --no-build]`.
// ragsynth is measured from its built output (dist/); this script rebuilds dist when it is missing or
// older than src/. The peer (llamaindex) lives in bench/node_modules, installed on first run from bench/package-lock.json.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT_DIR = join(BENCH_DIR, "..");

function parseArgs(argv) {
  const options = { quick: false, json: null, only: null, build: true, runs: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--quick") options.quick = true;
    else if (arg === "--no-build") options.build = false;
    else if (arg === "--json") options.json = argv[++i];
    else if (arg.startsWith("--json=")) options.json = arg.slice("--json=".length);
    else if (arg === "--only") options.only = argv[++i].split(",");
    else if (arg.startsWith("--only=")) options.only = arg.slice("--only=".length).split(",");
    else if (arg === "--runs") options.runs = Number(argv[++i]);
    else if (arg === "--help" || arg === "-h") {
      console.log(
        "usage: npm run bench -- [--quick] [--json <file>] [--only repack,calls,tree,adaptive,stream,import,size,optimizer,batch,corpus,scale,postgres,threads,dense,quality,mixed,extraction,eval] [--runs N] [--no-build]",
      );
      process.exit(0);
    } else {
      console.error(`Unknown argument ${arg}; see --help.`);
      process.exit(2);
    }
  }
  if (options.json === undefined) {
    console.error("--json needs a file name.");
    process.exit(2);
  }
  if (options.runs !== null && !(Number.isInteger(options.runs) && options.runs >= 5)) {
    console.error(`Expected --runs to be an integer ≥ 5, got ${options.runs}.`);
    process.exit(2);
  }
  options.runs ??= 5;
  return options;
}

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(entry.name)) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/** Builds dist/ when it is missing or older than src/. A failed build leaves whatever dist/ there is. */
function ensureBuilt() {
  const distIndex = join(ROOT_DIR, "dist", "index.js");
  const stale = !existsSync(distIndex) || statSync(distIndex).mtimeMs < newestMtime(join(ROOT_DIR, "src"));
  if (!stale) return;
  console.error("bench: dist/ is missing or older than src/, running `npm run build` at the repo root…");
  const result = spawnSync("npm", ["run", "build", "--silent"], { cwd: ROOT_DIR, stdio: ["ignore", 2, 2] });
  if (result.status !== 0) {
    console.error(
      "bench: the build failed; measuring whatever dist/ holds (rows that need missing pieces print n/a).",
    );
  }
}

function checkInstall() {
  if (!existsSync(join(ROOT_DIR, "node_modules", "gpt-tokenizer", "package.json"))) {
    console.error("bench: the repo's own dependencies are missing. Run `npm ci` at the repo root first.");
    process.exit(1);
  }
  const missing = () =>
    ["llamaindex", "@llamaindex/openai", "esbuild", "gpt-tokenizer-4", "js-tiktoken"].filter(
      (name) => !existsSync(join(BENCH_DIR, "node_modules", name, "package.json")),
    );
  if (missing().length === 0) return;
  // The peer is never a dependency of ragsynth: it lives in bench/, installed from bench/package-lock.json.
  // --ignore-scripts skips a native build (tree-sitter) that the peer pulls in and the bench never loads.
  console.error(
    "bench: installing the peer (llamaindex) into bench/node_modules from bench/package-lock.json…",
  );
  const result = spawnSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"], {
    cwd: BENCH_DIR,
    stdio: ["ignore", 2, 2],
  });
  if (result.status !== 0 || missing().length > 0) {
    console.error(
      `bench: could not install ${missing().join(", ")}. Run \`npm ci --prefix bench --ignore-scripts\` to see why.`,
    );
    process.exit(1);
  }
}

const FIGURES = {
  repack: () => import("./figures/repack.mjs").then((m) => m.repackFigure),
  calls: () => import("./figures/calls.mjs").then((m) => m.callsFigure),
  tree: () => import("./figures/tree.mjs").then((m) => m.treeFigure),
  adaptive: () => import("./figures/adaptive.mjs").then((m) => m.adaptiveFigure),
  stream: () => import("./figures/stream.mjs").then((m) => m.streamFigure),
  import: () => import("./figures/import-cost.mjs").then((m) => m.importFigure),
  size: () => import("./figures/size.mjs").then((m) => m.sizeFigure),
  optimizer: () => import("./figures/optimizer.mjs").then((m) => m.optimizerFigure),
  batch: () => import("./figures/batch.mjs").then((m) => m.batchFigure),
  corpus: () => import("./figures/corpus.mjs").then((m) => m.corpusFigure),
  scale: () => import("./figures/scale.mjs").then((m) => m.scaleFigure),
  postgres: () => import("./figures/postgres.mjs").then((m) => m.postgresFigure),
  threads: () => import("./figures/threads.mjs").then((m) => m.threadsFigure),
  dense: () => import("./figures/dense.mjs").then((m) => m.denseFigure),
  quality: () => import("./figures/quality.mjs").then((m) => m.qualityFigure),
  mixed: () => import("./figures/mixed-quality.mjs").then((m) => m.mixedQualityFigure),
  extraction: () => import("./figures/extraction.mjs").then((m) => m.extractionFigure),
  eval: () => import("./figures/eval-modes.mjs").then((m) => m.evalModesFigure),
};

async function main() {
  const options = parseArgs(process.argv.slice(2));
  checkInstall();
  if (options.build) ensureBuilt();
  const { renderReport } = await import("./lib/report.mjs");

  const started = performance.now();
  const machine = {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    loadAverageAtStart: loadavg()[0],
  };
  const names = options.only ?? Object.keys(FIGURES);
  for (const name of names) {
    if (!(name in FIGURES)) {
      console.error(`Unknown figure ${name}; expected one of ${Object.keys(FIGURES).join(", ")}.`);
      process.exit(2);
    }
  }
  const sections = [];
  for (const name of names) {
    const figureStart = performance.now();
    process.stderr.write(`bench: ${name}…`);
    let section;
    try {
      const figure = await FIGURES[name]();
      section = await figure({ quick: options.quick, runs: options.runs });
    } catch (error) {
      section = { id: name, title: name, error: error?.stack ?? String(error), targets: [] };
    }
    process.stderr.write(` ${((performance.now() - figureStart) / 1000).toFixed(1)} s\n`);
    sections.push(section);
  }
  const seconds = (performance.now() - started) / 1000;
  machine.loadAverageAtEnd = loadavg()[0];

  const header = [
    `## ragsynth vs llamaindex ${options.quick ? "(quick: small sizes, timings not asserted)" : "(full run)"}`,
    "",
    `${new Date().toISOString()} · ${machine.cpus} cores (${machine.cpuModel}) · ${machine.memoryGiB} GiB · Node ${machine.node} · ${machine.platform} · ${seconds.toFixed(1)} s`,
    `1-minute load average ${machine.loadAverageAtStart.toFixed(1)} at the start, ${machine.loadAverageAtEnd.toFixed(1)} at the end${
      Math.max(machine.loadAverageAtStart, machine.loadAverageAtEnd) > machine.cpus
        ? ` (above ${machine.cpus}: other processes competed for the cores; absolute times are inflated, same-run ratios less so)`
        : ""
    }.`,
    `Every time is the median of ${options.runs} interleaved runs; ratios compare medians from this same run.`,
  ].join("\n");
  const { rootExportGaps } = await import("./lib/libs.mjs");
  const gaps =
    rootExportGaps.size > 0
      ? `\nNot yet exported from ragsynth's root, loaded from their folder: ${[...rootExportGaps].join(", ")}.`
      : "";
  console.log(renderReport({ header: header + gaps, sections }));

  if (options.json) {
    const file = resolve(process.cwd(), options.json);
    mkdirSync(dirname(file), { recursive: true });
    const summary = {
      date: new Date().toISOString(),
      quick: options.quick,
      runs: options.runs,
      seconds,
      machine,
      figures: Object.fromEntries(
        sections.map((s) => [
          s.id,
          { title: s.title, error: s.error, headers: s.headers, rows: s.rows, data: s.json },
        ]),
      ),
      targets: sections.flatMap((s) => s.targets ?? []),
      rootExportGaps: [...rootExportGaps],
    };
    writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
    console.error(`bench: wrote ${file}`);
  }
  const failed = sections.filter((s) => s.error);
  if (failed.length > 0) {
    console.error(`bench: ${failed.length} figure(s) failed: ${failed.map((s) => s.id).join(", ")}`);
    process.exitCode = 1;
  }
}

await main();
