// Figure: an index build's worker threads (`--threads`, src/index-store/split-pool.ts). First indexes at --threads 0
// (everything in the main thread) and 2, interleaved in rotating order: the small corpus (Markdown), the large one
// (also at 1: on 2 or 3 cores the default from 16 MiB), the mixed-format one (HTML, PDF, man pages, RST, DOCX: most
// of its build is parsing) when built; and the large corpus ten times over at 0, 1 and 2, once each. Wall time, CPU time (user
// + system, every thread), the main thread's busy time (what threads cannot take: listing, reading, writing the
// store), peak RSS and throughput; and whether the index is the same row for row (scripts/index-digest.mjs).

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, cli } from "../lib/cli-run.mjs";
import { ensureCorpus } from "../lib/corpus.mjs";
import { NOT_BUILT, ROOT_DIR } from "../lib/libs.mjs";
import { mixedCorpusIfBuilt } from "../lib/mixed-corpus.mjs";
import { fmt } from "../lib/report.mjs";
import { repeatedCorpus } from "./scale.mjs";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The digest line of scripts/index-digest.mjs for the index in `cache`: chunks, terms and one SHA-256. */
function digest(cache) {
  const out = spawnSync(process.execPath, [join(ROOT_DIR, "scripts", "index-digest.mjs"), cache], {
    encoding: "utf8",
  });
  if (out.status !== 0) throw new Error(`index-digest failed: ${out.stderr.slice(-400)}`);
  return out.stdout.trim();
}

/** One first index of `dir` at `threads` into a fresh cache folder: its run, and the digest of what it wrote. */
function firstIndex(dir, threads) {
  const cache = mkdtempSync(join(tmpdir(), "bench-threads-"));
  try {
    const run = cli(["index", dir, "--cache-dir", cache, "--threads", String(threads), "--json"]);
    return { ...run, threads: JSON.parse(run.stdout).threads, digest: digest(cache) };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

function row(label, textBytes, runs) {
  const wall = median(runs.map((run) => run.ms));
  return [
    label,
    `${fmt(wall / 1000, 2)} s (${fmt(textBytes / 1e6 / (wall / 1000), 1)} MB/s)`,
    `${fmt(median(runs.map((run) => run.cpuMs)) / 1000, 1)} s`,
    `${fmt(median(runs.map((run) => run.mainBusyMs)) / 1000, 1)} s`,
    `${fmt(Math.max(...runs.map((run) => run.rss)))} MB`,
    String(runs[0].threads),
  ];
}

export async function threadsFigure({ quick, runs }) {
  const title = "First index with worker threads (--threads), offline";
  const headers = [
    "case",
    "first index (median)",
    "CPU, user + system",
    "main thread busy",
    "peak RSS",
    "threads used",
  ];
  if (!existsSync(BIN)) return { id: "threads", title, headers, rows: [["all", NOT_BUILT]], notes: [] };
  const rounds = Math.max(3, Math.min(runs, 5));
  const rows = [];
  const json = { cores: availableParallelism() };
  // The small corpus (Markdown) at 0 and 2, the large one (mostly .d.ts text: most of its build is splitting) at 0,
  // 1 and 2, and the mixed-format one (most of its build is parsing) at 0 and 2 when it is built.
  const mixed = quick ? undefined : mixedCorpusIfBuilt();
  const cases = quick
    ? [["small", [0, 2]]]
    : [["small", [0, 2]], ["large", [0, 1, 2]], ...(mixed ? [["mixed", [0, 2]]] : [])];
  if (!quick && !mixed)
    rows.push(["mixed: not built (bench/lib/mixed-corpus.mjs builds it)", "n/a", "", "", "", ""]);
  for (const [name, settings] of cases) {
    const corpus = name === "mixed" ? mixed : await ensureCorpus(name);
    const results = new Map(settings.map((threads) => [threads, []]));
    for (let round = 0; round < (quick ? 1 : rounds); round++) {
      // Rotating order: each setting runs first, middle and last in turn.
      for (let step = 0; step < settings.length; step++) {
        const threads = settings[(round + step) % settings.length];
        results.get(threads).push(firstIndex(corpus.dir, threads));
      }
    }
    for (const threads of settings)
      rows.push(
        row(
          `${name}: ${fmt(corpus.bytes / 1e6, 1)} MB, --threads ${threads}`,
          corpus.bytes,
          results.get(threads),
        ),
      );
    const own = new Set([...results.values()].flat().map((run) => run.digest));
    json[name] = { runs: Object.fromEntries(results), sameIndex: own.size === 1 };
  }
  json.sameIndex = Object.values(json).every((entry) => typeof entry !== "object" || entry.sameIndex);
  if (!quick) {
    const large = await ensureCorpus("large");
    const work = mkdtempSync(join(tmpdir(), "bench-threads-large10-"));
    try {
      const large10 = repeatedCorpus(large, 10, join(work, "large10"));
      const ten = [0, 1, 2].map((threads) => firstIndex(large10.dir, threads));
      for (const run of ten)
        rows.push(
          row(`large10: ${fmt(large10.bytes / 1e6, 1)} MB, --threads ${run.threads}`, large10.bytes, [run]),
        );
      json.large10 = ten;
      json.sameIndex10 = ten.every((run) => run.digest === ten[0].digest);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return {
    id: "threads",
    title,
    headers,
    rows,
    targets: [],
    notes: [
      `\`ragsynth index <folder> --cache-dir <fresh> --threads <n> --json\`, the built CLI started and timed by a small launcher, no model configured; ${quick ? "one run each" : `${rounds} runs of each setting on the small, large and mixed corpora, interleaved in rotating order (median wall and CPU, largest peak RSS), and one of each on large10 (the scale figure's ten copies)`}. CPU is the process's user + system time, every thread included; the main thread's busy time is its event loop's active time (\`performance.eventLoopUtilization()\` at exit): what the build does there whatever the threads (listing and reading files, writing the store), so no number of cores takes a first index below it. This machine has ${availableParallelism()} cores. Without --threads a build starts one thread on 2 or 3 cores from 16 MiB of files to split (so here the small corpus is split in the main thread and the others in one thread), and one per core but one, up to 4, from 1 MiB on 4 cores or more.`,
      `The index each run wrote, by scripts/index-digest.mjs (every chunk's node, hash and length, every source row, the statistics and every term's postings): ${json.sameIndex ? "the same digest for every run and setting of each corpus" : "DIFFERENT digests across settings"}${json.large10 ? `; large10: ${json.sameIndex10 ? "the same at 0, 1 and 2" : "DIFFERENT at 0, 1 and 2"}` : ""}.`,
    ],
    json,
  };
}
