// The mixed-format corpus: real documentation in the formats people keep (HTML, PDF, man pages, RST, DOCX,
// Markdown), rebuilt on a fresh Debian 12 machine from packages installed by name with apt-get, plus the
// Markdown of the bench's pinned npm packages (the small corpus, bench/corpora/npm-docs).
//
//   node bench/lib/mixed-corpus.mjs [--install]     builds bench/corpora/out/mixed/ and prints its figures
//
// --install runs `apt-get install` for the missing packages (root; run `apt-get update` first). Without it a
// missing package is named and the build stops. Files are picked by fixed rules (paths sorted by name, fixed
// counts and size caps) and copied under stable names: the package's short name, then the path below its
// documentation folder with "/" replaced by "__". DOCX files are converted from the Python HOWTO sources with
// Debian's pandoc (no Debian package ships DOCX documentation). A manifest (out/mixed.json) holds the files, the
// package versions and the rules' version; a later call with the same rules and versions returns at once.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureCorpus } from "./corpus.mjs";

const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "corpora", "out");
export const MIXED_DIR = join(OUT_DIR, "mixed");
const MANIFEST = join(OUT_DIR, "mixed.json");
/** Raised whenever a rule below changes, so an old folder is rebuilt. */
const RULES_VERSION = 3;

/** The Debian packages the corpus is made of (bookworm), and the tools the harness compares against. */
export const MIXED_PACKAGES = [
  "sqlite3-doc",
  "postgresql-doc-15",
  "git-doc",
  "git-man",
  "python3.11-doc",
  "r-doc-pdf",
  "texlive-latex-base-doc",
  "asymptote-doc",
  "gnuplot-doc",
  "shared-mime-info",
];
export const TOOL_PACKAGES = ["poppler-utils", "pandoc"];

const sorted = (paths) => [...paths].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const list = (dir, test) =>
  existsSync(dir) ? sorted(readdirSync(dir).filter(test)).map((name) => join(dir, name)) : [];
const size = (path) => statSync(path).size;

/**
 * The selection rules: each names its package, its format, the source files in order, and a short name
 * prefix. Counts and caps keep the corpus near 330 files and 25 MB with a quarter HTML and a sixth PDF.
 */
const RULES = [
  {
    pkg: "sqlite3-doc",
    prefix: "sqlite",
    format: "html",
    files: () => list("/usr/share/doc/sqlite3", (n) => /^lang_.*\.html$/.test(n) || n === "pragma.html"),
  },
  {
    pkg: "postgresql-doc-15",
    prefix: "postgresql",
    format: "html",
    files: () =>
      list("/usr/share/doc/postgresql-doc-15/html", (n) =>
        /^(runtime-config-.*|sql-create.*)\.html$/.test(n),
      ),
  },
  {
    pkg: "git-doc",
    prefix: "git",
    format: "html",
    files: () => list("/usr/share/doc/git-doc", (n) => /^git-[a-f].*\.html$/.test(n)),
  },
  {
    pkg: "git-man",
    prefix: "man",
    format: "man",
    files: () => list("/usr/share/man/man1", (n) => /^git-[g-z].*\.1\.gz$/.test(n)).slice(0, 45),
  },
  {
    pkg: "python3.11-doc",
    prefix: "python",
    format: "rst",
    // Sphinx keeps the sources as .rst.txt; they are copied with an .rst ending.
    files: () =>
      list("/usr/share/doc/python3.11/html/_sources/library", (n) => /^[a-l].*\.rst\.txt$/.test(n)).slice(
        0,
        60,
      ),
    rename: (name) => name.replace(/\.rst\.txt$/, ".rst"),
  },
  {
    pkg: "python3.11-doc",
    prefix: "python-howto",
    format: "docx",
    files: () =>
      list(
        "/usr/share/doc/python3.11/html/_sources/howto",
        (n) => /\.rst\.txt$/.test(n) && n !== "index.rst.txt",
      ).slice(0, 12),
    convert: "docx",
    rename: (name) => name.replace(/\.rst\.txt$/, ".docx"),
  },
  {
    pkg: "r-doc-pdf",
    prefix: "r",
    format: "pdf",
    files: () => list("/usr/share/doc/r-doc-pdf/manual", (n) => n.endsWith(".pdf") && n !== "refman.pdf"),
  },
  {
    pkg: "texlive-latex-base-doc",
    prefix: "latex",
    format: "pdf",
    files: () =>
      [
        ...list("/usr/share/doc/texlive-doc/latex/amsmath", (n) => n.endsWith(".pdf")),
        ...list("/usr/share/doc/texlive-doc/latex/base", (n) => n.endsWith(".pdf")),
      ]
        .filter((path) => size(path) <= 600_000)
        .slice(0, 48),
  },
  {
    pkg: "asymptote-doc",
    prefix: "asymptote",
    format: "pdf",
    files: () => list("/usr/share/doc/asymptote", (n) => n.endsWith(".pdf")),
  },
  {
    pkg: "gnuplot-doc",
    prefix: "gnuplot",
    format: "pdf",
    files: () => list("/usr/share/doc/gnuplot", (n) => n.endsWith(".pdf")),
  },
  {
    pkg: "shared-mime-info",
    prefix: "shared-mime-info",
    format: "pdf",
    files: () => list("/usr/share/doc/shared-mime-info", (n) => n.endsWith(".pdf")),
  },
];

/** Markdown from the small npm corpus: the first files by name of a few packages, for a Markdown column. */
const MARKDOWN_PACKAGES = /^(commander|dotenv|semver|ws|yargs|fastify__docs__Reference)__/;
const MARKDOWN_COUNT = 20;

/** The installed version of each package, or undefined when it is missing. */
export function packageVersions(packages) {
  const versions = {};
  for (const pkg of packages) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own field syntax, not a template
    const result = spawnSync("dpkg-query", ["-W", "-f=${Status} ${Version}", pkg], { encoding: "utf8" });
    const match = /install ok installed (\S+)/.exec(result.stdout ?? "");
    versions[pkg] = match ? match[1] : undefined;
  }
  return versions;
}

/** Installs the missing packages with apt-get (root only), or throws naming them and the command. */
export function installPackages(packages, { install }) {
  const missing = Object.entries(packageVersions(packages))
    .filter(([, version]) => version === undefined)
    .map(([pkg]) => pkg);
  if (missing.length === 0) return;
  const command = ["apt-get", "install", "-y", "--no-install-recommends", ...missing];
  if (!install)
    throw new Error(
      `the mixed corpus needs Debian packages that are not installed: ${missing.join(", ")}. Run: ${command.join(" ")} (or node bench/lib/mixed-corpus.mjs --install)`,
    );
  const result = spawnSync(command[0], command.slice(1), {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (result.status !== 0) throw new Error(`${command.join(" ")} failed (exit ${result.status})`);
}

/** The corpus if it is built and current, without building it; else undefined. */
export function mixedCorpusIfBuilt() {
  if (!existsSync(MANIFEST)) return undefined;
  const manifest = JSON.parse(readFileSync(MANIFEST, "utf8"));
  if (manifest.rules !== RULES_VERSION || !existsSync(MIXED_DIR)) return undefined;
  return { dir: MIXED_DIR, ...manifest };
}

/**
 * Builds the mixed corpus (or returns it when the manifest matches the installed package versions):
 * `{ dir, files: [{ name, format, pkg, source, bytes }], bytes, versions, formats }`.
 */
export async function ensureMixedCorpus({ install = false, log = console.error } = {}) {
  installPackages([...MIXED_PACKAGES, ...TOOL_PACKAGES], { install });
  const versions = packageVersions(MIXED_PACKAGES);
  const current = mixedCorpusIfBuilt();
  if (current && JSON.stringify(current.versions) === JSON.stringify(versions)) return current;
  rmSync(MIXED_DIR, { recursive: true, force: true });
  mkdirSync(MIXED_DIR, { recursive: true });
  const files = [];
  for (const rule of RULES) {
    for (const source of rule.files()) {
      const name = `${rule.prefix}__${(rule.rename ?? ((n) => n))(basename(source))}`;
      const target = join(MIXED_DIR, name);
      if (rule.convert === "docx") {
        // SOURCE_DATE_EPOCH fixes the document's dates, so the same sources give the same bytes.
        const result = spawnSync("pandoc", ["--from", "rst", "--to", "docx", "--output", target, source], {
          encoding: "utf8",
          env: { ...process.env, SOURCE_DATE_EPOCH: "0" },
        });
        if (result.status !== 0) throw new Error(`pandoc could not convert ${source}: ${result.stderr}`);
      } else {
        copyFileSync(source, target);
      }
      files.push({ name, format: rule.format, pkg: rule.pkg, source, bytes: size(target) });
    }
  }
  const small = await ensureCorpus("small");
  const markdown = sorted(
    readdirSync(small.dir).filter((n) => MARKDOWN_PACKAGES.test(n) && extname(n) === ".md"),
  );
  for (const name of markdown.slice(0, MARKDOWN_COUNT)) {
    const target = join(MIXED_DIR, `npm__${name}`);
    copyFileSync(join(small.dir, name), target);
    files.push({
      name: `npm__${name}`,
      format: "md",
      pkg: "bench/corpora/npm-docs",
      source: name,
      bytes: size(target),
    });
  }
  const formats = {};
  for (const file of files) {
    formats[file.format] ??= { files: 0, bytes: 0 };
    const entry = formats[file.format];
    entry.files++;
    entry.bytes += file.bytes;
  }
  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  const manifest = { rules: RULES_VERSION, versions, files, bytes, formats };
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`corpus: built mixed: ${files.length} files, ${(bytes / 1e6).toFixed(2)} MB in ${MIXED_DIR}`);
  return { dir: MIXED_DIR, ...manifest };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const corpus = await ensureMixedCorpus({ install: process.argv.includes("--install") });
  console.log(
    `mixed corpus: ${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(2)} MB in ${corpus.dir}`,
  );
  for (const [format, { files, bytes }] of Object.entries(corpus.formats))
    console.log(
      `  ${format.padEnd(5)} ${String(files).padStart(4)} files ${(bytes / 1e6).toFixed(2).padStart(7)} MB (${((files / corpus.files.length) * 100).toFixed(0)}% of files)`,
    );
  for (const [pkg, version] of Object.entries(corpus.versions)) console.log(`  ${pkg} ${version}`);
}

/** Where the standard tools' text of each corpus file is kept (`<name>.txt`), shared by the extraction and quality figures. */
export const REFERENCE_DIR = join(OUT_DIR, "mixed-reference");

/** The standard tool's command that turns one corpus file of a format into plain text. */
export const REFERENCE_COMMANDS = {
  pdf: (file) => ["pdftotext", ["-q", "-enc", "UTF-8", file, "-"]],
  html: (file) => ["pandoc", ["-f", "html", "-t", "plain", "--wrap=none", file]],
  docx: (file) => ["pandoc", ["-f", "docx", "-t", "plain", "--wrap=none", file]],
  rst: (file) => ["pandoc", ["-f", "rst", "-t", "plain", "--wrap=none", file]],
  man: (file) => ["sh", ["-c", 'zcat -- "$1" | groff -man -Tutf8 -P-cbou', "sh", file]],
  md: (file) => ["cat", ["--", file]],
};

/**
 * The standard tool's text of every corpus file, in REFERENCE_DIR (made once; later calls reuse it). Returns the
 * folder. A file the tool fails on is left out and named on stderr.
 */
export function ensureReferenceTexts(corpus, { log = console.error } = {}) {
  mkdirSync(REFERENCE_DIR, { recursive: true });
  let made = 0;
  for (const file of corpus.files) {
    const target = join(REFERENCE_DIR, `${file.name}.txt`);
    if (existsSync(target)) continue;
    const [program, args] = REFERENCE_COMMANDS[file.format](join(corpus.dir, file.name));
    const result = spawnSync(program, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    if (result.status !== 0) {
      log(`reference: ${program} failed on ${file.name} (exit ${result.status}); left out`);
      continue;
    }
    writeFileSync(target, result.stdout);
    made++;
  }
  if (made > 0) log(`reference: wrote the standard tools' text of ${made} files to ${REFERENCE_DIR}`);
  return REFERENCE_DIR;
}
