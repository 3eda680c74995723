// Extraction quality and speed of the PDF, HTML and DOCX readers against the standard tools, on real files:
// word-level F1 (multiset of lower-cased words) against `pdftotext` (poppler-utils) and `pandoc -t plain`,
// and time side by side. Needs `apt-get install poppler-utils pandoc` and documentation packages for inputs
// (e.g. sqlite3-doc, python3.11-doc, git-doc, postgresql-doc-15; PDFs shipped by packages such as
// shared-mime-info, libtasn1-doc, gnuplot-doc, asymptote-doc).
//
//   npx tsx bench/format-extraction.ts [--every N] [--pdf a.pdf b.pdf] [--html-dirs dir…]
//
// DOCX inputs are made from the sampled HTML pages with pandoc (said so in the output), then read back.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { docxReader } from "../src/reader/formats/docx.js";
import { htmlReader } from "../src/reader/formats/html.js";
import { pdfReader } from "../src/reader/formats/pdf.js";
import { DEFAULT_READER_LIMITS, type DocumentReader } from "../src/reader/formats/types.js";

const argv = process.argv.slice(2);
const listAfter = (flag: string) => {
  const at = argv.indexOf(flag);
  if (at === -1) return undefined;
  const values: string[] = [];
  for (const value of argv.slice(at + 1)) {
    if (value.startsWith("--")) break;
    values.push(value);
  }
  return values;
};
const every = Number(listAfter("--every")?.[0] ?? 10);
const defaultPdfs = [
  "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
  "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
  "/usr/share/doc/gnuplot/gnuplot.pdf",
  "/usr/share/doc/asymptote/asymptote.pdf",
  "/usr/share/doc/asymptote/asy-latex.pdf",
  "/usr/share/doc/asymptote/CAD.pdf",
  "/usr/share/doc/asymptote/TeXShopAndAsymptote.pdf",
  "/usr/share/doc/asymptote/asyRefCard.pdf",
];
const defaultHtmlDirs = [
  "/usr/share/doc/postgresql-doc-15",
  "/usr/share/doc/sqlite3",
  "/usr/share/doc/python3.11",
  "/usr/share/doc/git-doc",
  "/usr/share/doc/nodejs",
];
const exists = (path: string) => {
  try {
    return statSync(path).isFile() || statSync(path).isDirectory();
  } catch {
    return false;
  }
};

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
function overlap(ours: string[], reference: string[]) {
  const counts = new Map<string, number>();
  for (const word of reference) counts.set(word, (counts.get(word) ?? 0) + 1);
  let hits = 0;
  for (const word of ours) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      hits++;
      counts.set(word, left - 1);
    }
  }
  return { hits, ours: ours.length, reference: reference.length };
}
const f1 = (t: { hits: number; ours: number; reference: number }) =>
  `F1 ${((2 * t.hits) / (t.ours + t.reference)).toFixed(4)} (P ${(t.hits / t.ours).toFixed(4)}, R ${(t.hits / t.reference).toFixed(4)})`;

/** Runs a command, returning its stdout and its wall and CPU time in ms (bash's `time`). */
function timed(command: string[]): { stdout: string; wall: number; cpu: number } {
  const quoted = command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
  const out = join(tmpdir(), `format-extraction-${process.pid}.txt`);
  const result = spawnSync("bash", ["-c", `TIMEFORMAT='%R %U %S'; time ${quoted} > '${out}'`], {
    encoding: "utf8",
  });
  const [wall = 0, user = 0, system = 0] = (result.stderr.trim().split("\n").pop() ?? "")
    .split(/\s+/)
    .map(Number);
  return { stdout: readFileSync(out, "utf8"), wall: wall * 1000, cpu: (user + system) * 1000 };
}

async function ours(reader: DocumentReader, file: string) {
  const bytes = readFileSync(file);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await reader.read({ bytes, path: file, limits: DEFAULT_READER_LIMITS });
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return {
    text: result.blocks.map((block) => block.text).join("\n"),
    wall,
    cpu: (used.user + used.system) / 1000,
    bytes: bytes.length,
  };
}

const total = () => ({ hits: 0, ours: 0, reference: 0 });
const add = (into: ReturnType<typeof total>, from: ReturnType<typeof total>) => {
  into.hits += from.hits;
  into.ours += from.ours;
  into.reference += from.reference;
};

// PDF against pdftotext
const pdfs = (listAfter("--pdf") ?? defaultPdfs).filter(exists);
if (pdfs.length > 0) {
  await ours(pdfReader, pdfs[0] as string); // loads PDF.js once, outside the measurement
  const all = total();
  let [oursWall, oursCpu, refWall, refCpu] = [0, 0, 0, 0];
  console.log("PDF vs pdftotext");
  for (const file of pdfs) {
    const mine = await ours(pdfReader, file);
    const reference = timed(["pdftotext", file, "-"]);
    const counts = overlap(words(mine.text), words(reference.stdout));
    add(all, counts);
    [oursWall, oursCpu, refWall, refCpu] = [
      oursWall + mine.wall,
      oursCpu + mine.cpu,
      refWall + reference.wall,
      refCpu + reference.cpu,
    ];
    console.log(
      `  ${basename(file)}: ${f1(counts)}; ms ours ${mine.wall.toFixed(0)} (cpu ${mine.cpu.toFixed(0)}), pdftotext ${reference.wall.toFixed(0)} (cpu ${reference.cpu.toFixed(0)})`,
    );
  }
  console.log(
    `  all ${pdfs.length} PDFs: ${f1(all)}; time ours/pdftotext: wall ${(oursWall / refWall).toFixed(2)}×, cpu ${(oursCpu / refCpu).toFixed(2)}×`,
  );
}

// HTML against pandoc, and DOCX made from the same pages
const htmlFiles: string[] = [];
for (const dir of (listAfter("--html-dirs") ?? defaultHtmlDirs).filter(exists)) {
  const found = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".html"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  htmlFiles.push(...found.filter((_, index) => index % every === 0));
}
if (htmlFiles.length > 0) {
  const perPackage = new Map<
    string,
    ReturnType<typeof total> & { bytes: number; cpu: number; wall: number; files: number }
  >();
  const docxDir = mkdtempSync(join(tmpdir(), "format-extraction-docx-"));
  const docx = total();
  let docxFiles = 0;
  for (const file of htmlFiles) {
    const mine = await ours(htmlReader, file);
    const reference = timed(["pandoc", "-f", "html", "-t", "plain", "--wrap=none", file]);
    const counts = overlap(words(mine.text), words(reference.stdout));
    const name = file.split("/")[4] ?? "other";
    const entry = perPackage.get(name) ?? { ...total(), bytes: 0, cpu: 0, wall: 0, files: 0 };
    add(entry, counts);
    entry.bytes += mine.bytes;
    entry.cpu += mine.cpu;
    entry.wall += mine.wall;
    entry.files++;
    perPackage.set(name, entry);
    if (docxFiles < 40 && htmlFiles.indexOf(file) % 5 === 0) {
      const target = join(docxDir, `${docxFiles}.docx`);
      if (spawnSync("pandoc", ["-f", "html", "-t", "docx", "-o", target, file]).status === 0) {
        const read = await ours(docxReader, target);
        const plain = timed(["pandoc", "-t", "plain", "--wrap=none", target]);
        add(docx, overlap(words(read.text), words(plain.stdout)));
        docxFiles++;
      }
    }
  }
  console.log("HTML vs pandoc -t plain (whole page; ours drops nav/header/footer/aside, pandoc keeps them)");
  const all = { ...total(), bytes: 0, cpu: 0, wall: 0, files: 0 };
  for (const [name, entry] of perPackage) {
    add(all, entry);
    all.bytes += entry.bytes;
    all.cpu += entry.cpu;
    all.wall += entry.wall;
    all.files += entry.files;
    console.log(`  ${name} (${entry.files} files, ${(entry.bytes / 1e6).toFixed(1)} MB): ${f1(entry)}`);
  }
  console.log(
    `  all ${all.files} files, ${(all.bytes / 1e6).toFixed(1)} MB: ${f1(all)}; ` +
      `${(all.bytes / 1e6 / (all.wall / 1000)).toFixed(1)} MB/s wall, ${(all.bytes / 1e6 / (all.cpu / 1000)).toFixed(1)} MB/s cpu`,
  );
  console.log(`DOCX (${docxFiles} made from those pages with pandoc) vs pandoc -t plain: ${f1(docx)}`);
  rmSync(docxDir, { recursive: true, force: true });
}
