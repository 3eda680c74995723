// Figure: importing the package. Cold `node -e "import('…')"` wall time (a fresh process each run),
// and the installed size of its runtime dependency closure.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH_DIR, DIST_INDEX, NOT_BUILT, ROOT_DIR } from "../lib/libs.mjs";
import { fmt, fmtRatio, target } from "../lib/report.mjs";
import { interleave, ratio } from "../lib/stats.mjs";
import { timedSpawn } from "../lib/timed-spawn.mjs";

// Timed from a small launcher process (see timed-spawn.mjs): by this figure the bench's own heap is large,
// and forking from it would add its cost to every sample.
function nodeEval(code, cwd) {
  return () => {
    const result = timedSpawn(process.execPath, ["-e", code], { cwd });
    if (result.status !== 0) throw new Error(`node -e ${code} failed: ${result.stderr}`);
    return result.ms;
  };
}

function directorySize(dir, skipNodeModules = true) {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (skipNodeModules && entry.name === "node_modules") continue;
      const inner = directorySize(join(dir, entry.name), false);
      bytes += inner.bytes;
      files += inner.files;
    } else if (entry.isFile()) {
      bytes += statSync(join(dir, entry.name)).size;
      files++;
    }
  }
  return { bytes, files };
}

/** Where Node would find package `name` from a module in `fromDir`. */
function resolvePackageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/**
 * The runtime dependency closure of the package in `packageDir`: dependencies, optional dependencies
 * that are installed, and required peers, recursively; each installed copy once.
 */
function dependencyClosure(packageDir, { includeSelf = true } = {}) {
  const seen = new Map();
  const missing = new Set();
  const visit = (dir, self) => {
    if (seen.has(dir)) return;
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    seen.set(dir, self && !includeSelf ? { bytes: 0, files: 0 } : directorySize(dir));
    const optionalPeers = manifest.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optionalPeers[name]?.optional),
    ];
    for (const name of new Set(names)) {
      const found = resolvePackageDir(name, dir);
      if (found) visit(found, false);
      else if (!(name in (manifest.optionalDependencies ?? {}))) missing.add(name);
    }
  };
  visit(packageDir, true);
  let bytes = 0;
  for (const size of seen.values()) bytes += size.bytes;
  return { packages: seen.size, bytes, missing: [...missing] };
}

/** ragsynth's own files as `npm pack` would publish them. */
function packedSize() {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT_DIR,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [info] = JSON.parse(out);
  return { bytes: info.unpackedSize, files: info.entryCount };
}

export async function importFigure({ quick, runs }) {
  const importRuns = quick ? runs : Math.max(runs, 10);
  const ragsynthImport = `import(${JSON.stringify(pathToFileURL(DIST_INDEX).href)})`;
  let notBuilt = existsSync(DIST_INDEX) ? null : "dist/index.js is missing";
  if (!notBuilt) {
    try {
      nodeEval(ragsynthImport, ROOT_DIR)();
    } catch (error) {
      notBuilt = `importing dist/index.js failed: ${/Error[^\n]*/.exec(error.message)?.[0] ?? error.message}`;
    }
  }
  const built = notBuilt === null;
  // The ask rows' cache folders, removed once timed.
  const benchHomes = [];
  const peerDir = join(BENCH_DIR, "node_modules", "llamaindex");
  const entrants = [
    { name: "node", fn: nodeEval("0", ROOT_DIR) },
    // The same, forked by the bench process itself: what the launcher keeps out of every other sample.
    {
      name: "node-from-bench",
      fn: () => {
        const result = spawnSync(process.execPath, ["-e", "0"], { cwd: ROOT_DIR, stdio: "ignore" });
        if (result.status !== 0) throw new Error("node -e 0 failed");
      },
    },
    { name: "llamaindex", fn: nodeEval("import('llamaindex')", BENCH_DIR) },
  ];
  if (built) {
    entrants.push({
      name: "ragsynth",
      fn: nodeEval(`import(${JSON.stringify(pathToFileURL(DIST_INDEX).href)})`, ROOT_DIR),
    });
    // The CLI offline: the extractive answerer over the example docs (the index, once built, is reused).
    const bin = join(ROOT_DIR, "dist", "cli", "bin.js");
    const ask = ["ask", "examples/docs", "--query", "What is the default response mode?", "--no-stream"];
    // Each ask row has a cache folder (XDG_CACHE_HOME) of its own, in the state its name says, so no earlier run
    // on this machine decides what the CLI finds there.
    const newHome = () => {
      const home = mkdtempSync(join(tmpdir(), "ragsynth-bench-home-"));
      benchHomes.push(home);
      return home;
    };
    const askEntrant = (name, sample) => ({
      name,
      fn: () => {
        const { query = ask[3], home } = sample();
        const args = [...ask.slice(0, 3), query, ...ask.slice(4)];
        const result = timedSpawn(process.execPath, [bin, ...args], {
          cwd: ROOT_DIR,
          env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", XDG_CACHE_HOME: home },
        });
        if (result.status !== 0) throw new Error(`ragsynth ask failed: ${result.stderr}`);
        return result.ms;
      },
    });
    const cli = (args, home) => {
      const result = spawnSync(process.execPath, [bin, ...args], {
        cwd: ROOT_DIR,
        env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", XDG_CACHE_HOME: home },
        encoding: "utf8",
      });
      if (result.status !== 0) throw new Error(`ragsynth ${args[0]} failed: ${result.stderr}`);
    };
    // A word no run has counted: eight letters from a counter, a new pre-tokenizer piece every sample.
    let newWords = Date.now();
    const newWord = () => {
      let word = "";
      for (let n = newWords++; word.length < 8; n = Math.floor(n / 26))
        word += String.fromCharCode(97 + (n % 26));
      return word;
    };
    // Warm-up: (re)builds the example index, so the timed runs reuse it whatever format an older one had, and
    // leaves the caches of a user who asked once before.
    const warm = newHome();
    cli([...ask, "--rebuild"], warm);
    // A cache folder whose piece-count file is full (65,536 pieces, the most it keeps): an index of 70,000 made-up
    // words, then the same warm-up ask, so its pieces are the most recent.
    const full = newHome();
    const words = join(full, "words.txt");
    const made = [];
    for (let index = 0; index < 70_000; index++) made.push(newWord());
    writeFileSync(words, `${made.join(" ")}.\n`);
    cli(["index", words, "--cache-dir", join(full, "index")], full);
    cli(ask, full);
    entrants.push(
      // Every run after the first asking words met before: the compiled code of the CLI, and the token counts
      // of the pieces counted (no rank table loads).
      askEntrant("ask", () => ({ home: warm })),
      // The same with a full piece-count file to load.
      askEntrant("ask-full-pieces", () => ({ home: full })),
      // The same with one word of ASCII letters no run has counted: counted over the ASCII rank file the warm-up
      // left (no rank table loads).
      askEntrant("ask-new-word", () => ({
        home: warm,
        query: `What is the default response mode, ${newWord()}?`,
      })),
      // The same with a new word holding a non-ASCII letter: the rank table loads (from its compiled code).
      askEntrant("ask-new-word-accented", () => ({
        home: warm,
        query: `What is the default response mode, ${newWord()}é?`,
      })),
      // The very first run: an empty cache folder, so every module and the rank table compile from source, and
      // the caches are written before the process ends.
      askEntrant("ask-first-run", () => ({ home: newHome() })),
    );
  }
  let timings;
  try {
    timings = await interleave(entrants, { runs: importRuns, warmup: 1 });
  } finally {
    for (const home of benchHomes) rmSync(home, { recursive: true, force: true });
  }
  const ms = (name) => timings[name]?.median;
  const net = (name) => ms(name) - ms("node");

  const peerClosure = dependencyClosure(peerDir);
  let ours = null;
  if (built) {
    const own = packedSize();
    const deps = dependencyClosure(ROOT_DIR, { includeSelf: false });
    ours = {
      packages: deps.packages,
      bytes: deps.bytes + own.bytes,
      ownBytes: own.bytes,
      missing: deps.missing,
    };
  }
  const mb = (bytes) => `${fmt(bytes / 1e6, 1)} MB`;
  const rows = [
    [
      "cold import, ms (whole process)",
      built ? fmt(ms("ragsynth"), 1) : NOT_BUILT,
      fmt(ms("llamaindex"), 1),
      fmtRatio(ratio(ms("ragsynth"), ms("llamaindex"))),
    ],
    [
      `cold import, ms (minus \`node -e 0\`, ${fmt(ms("node"), 1)} ms)`,
      built ? fmt(net("ragsynth"), 1) : NOT_BUILT,
      fmt(net("llamaindex"), 1),
      fmtRatio(ratio(net("ragsynth"), net("llamaindex"))),
    ],
    [
      "installed size of the dependency closure",
      ours ? `${mb(ours.bytes)} (own ${mb(ours.ownBytes)})` : NOT_BUILT,
      mb(peerClosure.bytes),
      fmtRatio(ratio(ours?.bytes, peerClosure.bytes)),
    ],
    ["packages in the closure", ours ? fmt(ours.packages) : NOT_BUILT, fmt(peerClosure.packages), "—"],
    // The offline ask, each row in a cache folder of its own.
    ...[
      ["`ragsynth ask examples/docs` offline (extractive), ms (whole process)", "ask"],
      ["the same with the piece-count file full (65,536 pieces to load), ms", "ask-full-pieces"],
      [
        "the same, with a word of ASCII letters in the question that no run has counted (counted over the ASCII rank file), ms",
        "ask-new-word",
      ],
      [
        "the same, with a new word holding a non-ASCII letter (the rank table loads), ms",
        "ask-new-word-accented",
      ],
      [
        "the same as the very first run (an empty cache folder: no compiled code, no piece counts), ms",
        "ask-first-run",
      ],
    ].map(([label, key]) => [label, built ? fmt(ms(key), 1) : NOT_BUILT, "—", "—"]),
  ];
  return {
    id: "import",
    title: `importing the package — median of ${importRuns} fresh processes`,
    headers: ["measure", "ragsynth", "llamaindex 0.12.1", "ragsynth ÷ llamaindex"],
    rows,
    notes: [
      `Every sample is a fresh process started and timed by a small launcher process, not by the bench: after the earlier figures the bench's heap is large (${fmt(process.memoryUsage().rss / 1e6)} MB RSS now), and forking from it is slower, a cost a user's shell does not pay. \`node -e 0\` forked by the bench itself: ${fmt(ms("node-from-bench"), 1)} ms.`,
      "ragsynth: `import()` of the built dist/index.js; its size is the `npm pack` unpacked size plus its runtime dependencies (not zod, an optional peer).",
      "llamaindex: `import('llamaindex')` from bench/; closure = dependencies + installed optional deps + required peers, each installed copy once.",
      "In bench/ the peer's @llamaindex/env finds the repo root's gpt-tokenizer 4 (its optional peer) and loads it at import; a plain `npm i llamaindex` loads js-tiktoken instead.",
      ...(peerClosure.missing.length
        ? [`llamaindex dependencies not found on disk: ${peerClosure.missing.join(", ")}`]
        : []),
      ...(ours?.missing.length
        ? [`ragsynth dependencies not found on disk: ${ours.missing.join(", ")}`]
        : []),
      ...(notBuilt ? [`ragsynth: ${NOT_BUILT}: ${notBuilt}`] : []),
    ],
    targets: built
      ? [
          target(
            "import ≤ 60 ms over bare Node (`node -e 0`)",
            "≤ 60 ms",
            `${fmt(net("ragsynth"), 1)} ms`,
            quick ? null : net("ragsynth") <= 60,
          ),
          target(
            "`ragsynth ask examples/docs` offline ≤ 250 ms wall, cold",
            "≤ 250 ms",
            `${fmt(ms("ask"), 1)} ms`,
            quick ? null : ms("ask") <= 250,
          ),
        ]
      : [],
    json: { timings, ragsynth: ours, llamaindex: peerClosure },
  };
}
