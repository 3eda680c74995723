#!/usr/bin/env node
// `ask` wall time on an unchanged index and right after editing one file, at several corpus sizes, through the
// built CLI as a user runs it (offline: hashing embedder, extractive answerer). Issue 28's figures.
//   node bench/index-store.mjs [--bin dist/cli/bin.js] [--sizes small,large,large3] [--runs 5] [--index-runs 1]
// `--bin` may name another build (the CLI of an older ragsynth) to compare the index formats on the same corpora.
// Sizes: small (2.4 MB of Markdown), large (30.6 MB: Markdown and .d.ts), large3 (the large corpus three times,
// each copy with its own per-copy words, so postings grow as real text would). Corpora come from lib/corpus.mjs.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ensureCorpus } from "./lib/corpus.mjs";
import { median } from "./lib/stats.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index === -1 ? fallback : args[index + 1];
};
const bin = resolve(option("bin", join(import.meta.dirname, "..", "dist", "cli", "bin.js")));
const sizes = option("sizes", "small,large").split(",");
const runs = Number(option("runs", "5"));
// First indexes from scratch per size (the median is reported): the index's size and its throughput in MB/s of text.
const indexRuns = Number(option("index-runs", "1"));
const QUERY =
  "How can values from my .env file replace environment variables that are already set on the machine?";

const work = mkdtempSync(join(tmpdir(), "ragsynth-bench-store-"));
const env = { ...process.env, XDG_CACHE_HOME: join(work, "xdg") };
for (const key of Object.keys(env)) if (/^(OPENAI|RAGSYNTH)_/.test(key)) delete env[key];

function folderBytes(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    bytes += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return bytes;
}

/** The corpus folder for a size: a copy (the index is written beside the documents). */
async function corpusFolder(size) {
  const dir = join(work, size);
  if (size === "large3") {
    const large = await ensureCorpus("large");
    mkdirSync(dir);
    for (let copy = 0; copy < 3; copy++) {
      for (const file of large.files) {
        const name = file.split("/").at(-1);
        // Per-copy words: every 50th word gets the copy's suffix, so terms and postings grow, not just repeat.
        let count = 0;
        const text = readFileSync(file, "utf8").replace(/[A-Za-z]{4,}/g, (word) =>
          ++count % 50 === 0 && copy > 0 ? `${word}c${copy}` : word,
        );
        writeFileSync(join(dir, `copy${copy}__${name}`), text);
      }
    }
    return dir;
  }
  const corpus = await ensureCorpus(size);
  cpSync(corpus.dir, dir, { recursive: true });
  return dir;
}

// CPU seconds (user + system) from GNU time when it is there: on a shared, loaded machine wall time mostly measures
// the wait for a core, CPU time what the ask itself costs.
const GNU_TIME = "/usr/bin/time";
const withTime = spawnSync(GNU_TIME, ["-f", "%U", "true"]).status === 0;

function run(cliArgs) {
  const started = process.hrtime.bigint();
  const command = withTime
    ? [GNU_TIME, ["-f", "RAGSYNTH_CPU %U %S", process.execPath, bin, ...cliArgs]]
    : [process.execPath, [bin, ...cliArgs]];
  const result = spawnSync(command[0], command[1], { env, encoding: "utf8", maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`ragsynth ${cliArgs.join(" ")} failed: ${result.stderr}`);
  const cpu = /RAGSYNTH_CPU ([\d.]+) ([\d.]+)/.exec(result.stderr);
  return { ms, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : Number.NaN, stdout: result.stdout };
}

const rows = [];
for (const size of sizes) {
  const dir = await corpusFolder(size);
  const bytes = folderBytes(dir);
  const cache = join(dir, ".ragsynth");
  const builds = [];
  for (let build = 0; build < indexRuns; build++) {
    rmSync(cache, { recursive: true, force: true });
    builds.push(run(["index", dir, "--json"]));
  }
  const indexed = {
    ms: median(builds.map((result) => result.ms)),
    cpuMs: median(builds.map((result) => result.cpuMs)),
  };
  const chunks = JSON.parse(builds[0].stdout).chunks;
  const indexBytes = folderBytes(cache);
  const ask = () => run(["ask", dir, "-q", QUERY, "--json"]);
  ask(); // warm: the V8 code cache and the page cache
  const unchanged = Array.from({ length: runs }, ask);
  const edited = [];
  const files = readdirSync(dir).filter((name) => !name.startsWith("."));
  for (let round = 0; round < runs; round++) {
    const file = join(dir, files[(round * 7) % files.length]);
    writeFileSync(file, `${readFileSync(file, "utf8")}\nEdited in round ${round}: zebra${round} banner.\n`);
    edited.push(ask());
  }
  const wall = (list) => (median(list.map((result) => result.ms)) / 1000).toFixed(2);
  const cpu = (list) => (median(list.map((result) => result.cpuMs)) / 1000).toFixed(2);
  rows.push({
    size,
    textMB: (bytes / 1e6).toFixed(1),
    chunks,
    indexMB: `${(indexBytes / 1e6).toFixed(1)} (${(indexBytes / bytes).toFixed(2)}×)`,
    indexS: `${(indexed.ms / 1000).toFixed(1)} (${(indexed.cpuMs / 1000).toFixed(1)})`,
    indexRate: `${(bytes / 1e6 / (indexed.ms / 1000)).toFixed(2)} (${(bytes / 1e6 / (indexed.cpuMs / 1000)).toFixed(2)})`,
    unchangedS: `${wall(unchanged)} (${cpu(unchanged)})`,
    afterEditS: `${wall(edited)} (${cpu(edited)})`,
  });
  rmSync(dir, { recursive: true, force: true });
}
rmSync(work, { recursive: true, force: true });
console.log(
  `ragsynth ask, offline, median of ${runs} (first index: of ${indexRuns}): wall s (CPU s); bin: ${bin}`,
);
console.log(
  "| corpus | text MB | chunks | index MB (× text) | index s | index MB/s of text | ask unchanged s | ask after editing one file s |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const row of rows) {
  console.log(
    `| ${row.size} | ${row.textMB} | ${row.chunks} | ${row.indexMB} | ${row.indexS} | ${row.indexRate} | ${row.unchangedS} | ${row.afterEditS} |`,
  );
}
