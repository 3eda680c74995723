// Extraction quality of ragsynth's format readers against the standard tools, on the mixed corpus's files:
// PDF against `pdftotext` (poppler-utils), HTML, DOCX and RST against `pandoc -t plain`. For each format: the
// word-level F1 of the reader's text against the tool's (words: runs of letters and digits, lower-cased, compared
// as multisets per file; micro over all words of the format, and the lowest file), and the wall time of the reader
// next to the tool's (the tool run once per file as a process, as a user runs it).
//
//   node bench/extraction.mjs [--build] [--install] [--json out.json] [--limit N]
//
// Readers are taken from the build, by the names of the reader contract (src/reader/formats/types.ts):
// `pdfReader`, `htmlReader`, `docxReader`, `rstReader`, exported from dist/index.js or dist/extend/index.js, or
// from dist/reader/formats/<format>.js. A format whose reader is not built yet is skipped with a line saying so.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DIST_INDEX } from "./lib/libs.mjs";
import {
  ensureMixedCorpus,
  mixedCorpusIfBuilt,
  REFERENCE_COMMANDS,
  REFERENCE_DIR,
} from "./lib/mixed-corpus.mjs";
import { NOT_BUILT_LINE } from "./mixed-quality.mjs";

const DIST = dirname(DIST_INDEX);

/**
 * Each measured format: its reader's export name and the standard tool's command for one file. pandoc starts
 * slowly (seconds a file on a busy 2-core machine), so its output is kept beside the corpus; only pdftotext,
 * whose wall time the PDF reader is compared with, runs on every measurement (`timed`).
 */
export const EXTRACTION_FORMATS = [
  {
    format: "pdf",
    reader: "pdfReader",
    tool: "pdftotext",
    timed: true,
    command: REFERENCE_COMMANDS.pdf,
  },
  {
    format: "html",
    reader: "htmlReader",
    tool: "pandoc",
    command: REFERENCE_COMMANDS.html,
  },
  {
    format: "docx",
    reader: "docxReader",
    tool: "pandoc",
    command: REFERENCE_COMMANDS.docx,
  },
  {
    format: "rst",
    reader: "rstReader",
    tool: "pandoc",
    command: REFERENCE_COMMANDS.rst,
  },
];

/** The words of a text: runs of letters and digits, lower-cased. */
export function words(text) {
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** How many words two texts share, counted as multisets, and their sizes. */
export function overlap(candidate, reference) {
  const counts = new Map();
  for (const word of reference) counts.set(word, (counts.get(word) ?? 0) + 1);
  let shared = 0;
  for (const word of candidate) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      shared++;
      counts.set(word, left - 1);
    }
  }
  return { shared, candidate: candidate.length, reference: reference.length };
}

/** F1 from counts: 2PR / (P + R); 1 when both texts have no words. */
export function f1({ shared, candidate, reference }) {
  if (candidate === 0 && reference === 0) return 1;
  if (shared === 0) return 0;
  const precision = shared / candidate;
  const recall = shared / reference;
  return (2 * precision * recall) / (precision + recall);
}

/** The built reader exported under `name`, or undefined when no build has it yet. */
export async function findReader(name, format) {
  const places = [
    DIST_INDEX,
    join(DIST, "extend", "index.js"),
    join(DIST, "reader", "formats", `${format}.js`),
  ];
  for (const place of places) {
    if (!existsSync(place)) continue;
    const module = await import(pathToFileURL(place).href);
    const reader = module[name] ?? module.builtInReader?.(format);
    if (reader && typeof reader.read === "function") return reader;
  }
  return undefined;
}

const LIMITS = {
  maxFileBytes: 32 * 1024 * 1024,
  maxDecompressedBytes: 64 * 1024 * 1024,
  maxCompressionRatio: 100,
  maxDepth: 256,
};

/** Measures every format; `{ skipped }` when the corpus is not built and `build` is false. */
export async function extractionFigure({ build = false, install = false, limit = Infinity } = {}) {
  const corpus = build ? await ensureMixedCorpus({ install }) : mixedCorpusIfBuilt();
  if (corpus === undefined) return { skipped: NOT_BUILT_LINE };
  const rows = [];
  const notes = [];
  mkdirSync(REFERENCE_DIR, { recursive: true });
  for (const { format, reader: readerName, tool, timed = false, command } of EXTRACTION_FORMATS) {
    const files = corpus.files.filter((file) => file.format === format).slice(0, limit);
    const reader = await findReader(readerName, format);
    if (reader === undefined) {
      notes.push(
        `${format}: skipped, no \`${readerName}\` in dist/ yet (the reader comes with issue 26's format readers)`,
      );
      rows.push({ format, files: files.length, skipped: true });
      continue;
    }
    let toolMs = 0;
    let readerMs = 0;
    let bytes = 0;
    let failed = 0;
    const total = { shared: 0, candidate: 0, reference: 0 };
    let lowest = { f1: 1, file: "" };
    for (const file of files) {
      const path = join(corpus.dir, file.name);
      const fileBytes = readFileSync(path);
      bytes += fileBytes.length;
      const cached = join(REFERENCE_DIR, `${file.name}.txt`);
      let reference;
      if (!timed && existsSync(cached)) {
        reference = readFileSync(cached, "utf8");
      } else {
        const [program, args] = command(path);
        const started = performance.now();
        const result = spawnSync(program, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
        toolMs += performance.now() - started;
        if (result.status !== 0) {
          notes.push(`${format}: ${tool} failed on ${file.name} (exit ${result.status}); file left out`);
          continue;
        }
        reference = result.stdout;
        writeFileSync(cached, reference);
      }
      const started = performance.now();
      let text;
      try {
        const read = await reader.read({ bytes: new Uint8Array(fileBytes), path: file.name, limits: LIMITS });
        text = read.blocks.map((block) => block.text).join("\n");
      } catch (error) {
        failed++;
        notes.push(
          `${format}: the reader failed on ${file.name}: ${error?.code ?? ""} ${String(error?.message ?? error).slice(0, 160)}`,
        );
        text = "";
      }
      readerMs += performance.now() - started;
      const counts = overlap(words(text), words(reference));
      total.shared += counts.shared;
      total.candidate += counts.candidate;
      total.reference += counts.reference;
      const score = f1(counts);
      if (score < lowest.f1) lowest = { f1: score, file: file.name };
    }
    rows.push({
      format,
      files: files.length,
      failed,
      bytes,
      tool,
      f1: f1(total),
      precision: total.candidate ? total.shared / total.candidate : 0,
      recall: total.reference ? total.shared / total.reference : 0,
      lowest,
      readerMs,
      toolMs: timed ? toolMs : undefined,
      readerMBps: bytes / 1e6 / (readerMs / 1000),
    });
  }
  return { corpus, rows, notes };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const at = process.argv.indexOf("--limit");
  const figure = await extractionFigure({
    build: process.argv.includes("--build") || process.argv.includes("--install"),
    install: process.argv.includes("--install"),
    limit: at > 0 ? Number(process.argv[at + 1]) : Infinity,
  });
  if (figure.skipped) {
    console.log(figure.skipped);
  } else {
    console.log(
      "| format | files | against | word F1 (micro) | precision | recall | lowest file F1 | reader s | tool s | reader ÷ tool | reader MB/s |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|");
    for (const row of figure.rows) {
      if (row.skipped) {
        console.log(`| ${row.format} | ${row.files} | n/a: reader not built yet | | | | | | | | |`);
        continue;
      }
      console.log(
        `| ${row.format} | ${row.files} | ${row.tool} | ${row.f1.toFixed(3)} | ${row.precision.toFixed(3)} | ${row.recall.toFixed(3)} | ${row.lowest.f1.toFixed(3)} (${row.lowest.file}) | ${(row.readerMs / 1000).toFixed(2)} | ${row.toolMs === undefined ? "(cached)" : (row.toolMs / 1000).toFixed(2)} | ${row.toolMs === undefined ? "" : (row.readerMs / row.toolMs).toFixed(2)} | ${row.readerMBps.toFixed(1)} |`,
      );
    }
    for (const note of figure.notes) console.log(note);
    const json = process.argv.indexOf("--json");
    if (json > 0)
      writeFileSync(
        process.argv[json + 1],
        `${JSON.stringify({ rows: figure.rows, notes: figure.notes }, null, 2)}\n`,
      );
  }
}
