import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { readDocuments } from "./read-documents.js";
import { walkFiles } from "./walk-files.js";

let root: string;

async function write(relative: string, content: string | Uint8Array = "text"): Promise<void> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

const ids = (documents: { id: string }[]) => documents.map((document) => path.relative(root, document.id));
const skips = (skipped: { path: string; code: string }[]) =>
  skipped.map(({ path: skippedPath, code }) => [path.relative(root, skippedPath), code]);

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "ragsynth-walk-"));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the walk's ignore rules", () => {
  it("applies .gitignore and .ragsignore per folder as git does: deeper rules win, ! takes a file back", async () => {
    await write("docs/.gitignore", "*.log\nsecret/\n");
    await write("docs/.ragsignore", "drafts\n");
    await write("docs/a.md");
    await write("docs/run.log");
    await write("docs/secret/key.md");
    await write("docs/drafts/wip.md");
    await write("docs/sub/.gitignore", "!keep.log\n");
    await write("docs/sub/keep.log");
    await write("docs/sub/other.log");
    const { documents, skipped } = await readDocuments([path.join(root, "docs")]);
    expect(ids(documents)).toEqual(["docs/a.md", "docs/sub/keep.log"]);
    expect(skips(skipped)).toEqual([
      ["docs/.gitignore", "ignored"],
      ["docs/.ragsignore", "ignored"],
      ["docs/drafts", "ignored"],
      ["docs/run.log", "ignored"],
      ["docs/secret", "ignored"],
      ["docs/sub/.gitignore", "ignored"],
      ["docs/sub/other.log", "ignored"],
    ]);
    expect(skipped.find((entry) => entry.path.endsWith("run.log"))?.reason).toMatch(/docs\/\.gitignore/);
    expect(skipped.find((entry) => entry.path.endsWith("drafts"))?.reason).toMatch(/docs\/\.ragsignore/);
  });

  it("applies the .gitignore files above the folder given, up to the repository's top", async () => {
    await mkdir(path.join(root, "repo", ".git"), { recursive: true });
    await write("repo/.gitignore", "generated.md\n");
    await write("repo/docs/guide.md");
    await write("repo/docs/generated.md");
    const inRepo = await readDocuments([path.join(root, "repo", "docs")]);
    expect(ids(inRepo.documents)).toEqual(["repo/docs/guide.md"]);
    expect(skips(inRepo.skipped)).toEqual([["repo/docs/generated.md", "ignored"]]);
    // A folder the user names is read even when a .gitignore above it ignores the folder itself.
    await write("repo/.gitignore", "generated.md\nout/\n");
    await write("repo/out/corpus/page.md");
    await write("repo/out/corpus/generated.md");
    const named = await readDocuments([path.join(root, "repo", "out", "corpus")]);
    expect(ids(named.documents)).toEqual(["repo/out/corpus/generated.md", "repo/out/corpus/page.md"]);
    // Outside a repository, a .gitignore above the folder given is not applied.
    await rm(path.join(root, "repo", ".git"), { recursive: true });
    const alone = await readDocuments([path.join(root, "repo", "docs")]);
    expect(ids(alone.documents)).toEqual(["repo/docs/generated.md", "repo/docs/guide.md"]);
  });

  it("passes over the default folders, and reads them and ignored files with noIgnore", async () => {
    await write("docs/a.md");
    await write("docs/node_modules/pkg/readme.md");
    await write("docs/dist/a.md");
    await write("docs/build/html/index.txt");
    await write("docs/__pycache__/x.txt");
    await write("docs/.gitignore", "a.md\n");
    const { documents, skipped } = await readDocuments([path.join(root, "docs")]);
    expect(ids(documents)).toEqual([]);
    expect(skips(skipped)).toEqual([
      ["docs/.gitignore", "ignored"],
      ["docs/__pycache__", "ignored"],
      ["docs/a.md", "ignored"],
      ["docs/build", "ignored"],
      ["docs/dist", "ignored"],
      ["docs/node_modules", "ignored"],
    ]);
    expect(skipped[3]?.reason).toBe(
      "build/ holds build output, passed over by default (--no-ignore reads it)",
    );
    const all = await readDocuments([path.join(root, "docs")], { noIgnore: true });
    expect(ids(all.documents)).toEqual([
      "docs/__pycache__/x.txt",
      "docs/a.md",
      "docs/build/html/index.txt",
      "docs/dist/a.md",
      "docs/node_modules/pkg/readme.md",
    ]);
    expect(skips(all.skipped)).toEqual([["docs/.gitignore", "ignored"]]);
  });

  it("reads a page once when its source or data lies beside its HTML (git's .txt, Node's .md and .json.gz)", async () => {
    await write("doc/git-add.html", "<p>git add stages changes.</p>");
    await write("doc/git-add.txt", "git-add(1)\n==========\n\nStages changes.");
    await write("doc/readline.html", "<h2>Readline</h2><p>Reads lines.</p>");
    await write("doc/readline.md", "## Readline\n\nReads lines.");
    await write("doc/readline.json.gz", gzipSync('{"source":"readline.md"}'));
    await write("doc/notes.txt", "Notes of their own.");
    const { documents, skipped } = await readDocuments([path.join(root, "doc")]);
    expect(ids(documents)).toEqual(["doc/git-add.html", "doc/notes.txt", "doc/readline.html"]);
    expect(skips(skipped)).toEqual([
      ["doc/git-add.txt", "ignored"],
      ["doc/readline.json.gz", "ignored"],
      ["doc/readline.md", "ignored"],
    ]);
    expect(skipped[0]?.reason).toBe(
      "the source or data of git-add.html beside it, which is read (--no-ignore reads both)",
    );
    // When the page itself is not read (left out by --include), its source is.
    const sources = await readDocuments([path.join(root, "doc")], { include: ["*.txt"] });
    expect(ids(sources.documents)).toEqual(["doc/git-add.txt", "doc/notes.txt"]);
    const both = await readDocuments([path.join(root, "doc")], { noIgnore: true });
    expect(both.documents).toHaveLength(6);
  });

  it("reads a Sphinx HTML build's pages once: its copies of the sources and its theme files are passed over", async () => {
    // As Debian's python3.11-doc installs it: every page twice (HTML, and its reStructuredText in _sources/).
    await write("html/library/gzip.html", "<p>gzip.open() opens a gzip-compressed file.</p>");
    await write("html/_sources/library/gzip.rst.txt", "gzip.open() opens a gzip-compressed file.");
    await write("html/_static/doctools.js", "const Documentation = {};");
    await write("html/_downloads/example.py", "print('example')");
    const { documents, skipped } = await readDocuments([path.join(root, "html")]);
    expect(ids(documents)).toEqual(["html/_downloads/example.py", "html/library/gzip.html"]);
    expect(skips(skipped)).toEqual([
      ["html/_sources", "ignored"],
      ["html/_static", "ignored"],
    ]);
    expect(skipped[0]?.reason).toBe(
      "_sources/ holds Sphinx's copies of the pages' sources (the HTML pages beside it hold the same text), passed over by default (--no-ignore reads it)",
    );
    // Named, the folder is read: the rules apply below the paths given.
    const sources = await readDocuments([path.join(root, "html", "_sources")]);
    expect(ids(sources.documents)).toEqual(["html/_sources/library/gzip.rst.txt"]);
  });

  it("reads hidden files and folders with hidden, but not .git", async () => {
    await write("docs/.notes.md");
    await write("docs/.github/guide.md");
    await write("docs/.git/HEAD");
    const { documents, skipped } = await readDocuments([path.join(root, "docs")], { hidden: true });
    expect(ids(documents)).toEqual(["docs/.github/guide.md", "docs/.notes.md"]);
    expect(skips(skipped)).toEqual([["docs/.git", "ignored"]]);
  });

  it("takes include and exclude globs relative to the folder given; a name-only pattern matches at any depth", async () => {
    await write("docs/guide/a.md");
    await write("docs/guide/b.txt");
    await write("docs/drafts/c.md");
    await write("docs/notes/d.md");
    await write("docs/notes/e.log");
    const { documents, skipped } = await readDocuments([path.join(root, "docs")], {
      include: ["**/*.md", "*.log"],
      exclude: ["drafts/**", "d.md"],
    });
    expect(ids(documents)).toEqual(["docs/guide/a.md", "docs/notes/e.log"]);
    expect(skipped.map((entry) => [path.relative(root, entry.path), entry.reason])).toEqual([
      ["docs/drafts", "matches --exclude"],
      ["docs/guide/b.txt", "does not match --include"],
      ["docs/notes/d.md", "matches --exclude"],
    ]);
  });

  it("rejects malformed globs with a typed error", async () => {
    const error = await readDocuments([root], { include: [""] }).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/Expected `include` to be an array of glob patterns/);
  });
});

describe("the walk's links and special files", () => {
  it("reads a file linked twice inside the folder once, and follows a link to a folder inside it", async () => {
    await write("docs/a.md", "alpha");
    await write("docs/shared/b.md", "beta");
    await symlink(path.join(root, "docs/a.md"), path.join(root, "docs/alias.md"));
    await symlink(path.join(root, "docs/shared"), path.join(root, "docs/view"), "dir");
    const { documents, skipped } = await readDocuments([path.join(root, "docs")]);
    expect(ids(documents)).toEqual(["docs/a.md", "docs/shared/b.md"]);
    expect(skips(skipped)).toEqual([
      ["docs/alias.md", "duplicate"],
      ["docs/view", "duplicate"],
    ]);
  });

  it("names link loops, a dangling link and a FIFO, and reads every other file", async () => {
    await write("docs/a.md", "alpha");
    await symlink("self.md", path.join(root, "docs/self.md"));
    await symlink("ping.md", path.join(root, "docs/pong.md"));
    await symlink("pong.md", path.join(root, "docs/ping.md"));
    await mkdir(path.join(root, "docs/sub"));
    await symlink("..", path.join(root, "docs/sub/up"), "dir");
    await symlink(path.join(root, "nowhere.md"), path.join(root, "docs/dangling.md"));
    execFileSync("mkfifo", [path.join(root, "docs/pipe.md")]);
    const { documents, skipped } = await readDocuments([path.join(root, "docs")]);
    expect(ids(documents)).toEqual(["docs/a.md"]);
    expect(skips(skipped)).toEqual([
      ["docs/dangling.md", "unreadable"],
      ["docs/ping.md", "symlink_loop"],
      ["docs/pipe.md", "not_a_file"],
      ["docs/pong.md", "symlink_loop"],
      ["docs/self.md", "symlink_loop"],
      ["docs/sub/up", "symlink_loop"],
    ]);
    expect(skipped[0]?.reason).toMatch(/broken symbolic link/);
  });

  it("never reads /proc, even through a followed link", async () => {
    await write("docs/a.md", "alpha");
    await symlink("/proc/self/environ", path.join(root, "docs/env.md"));
    const { documents, skipped } = await readDocuments([path.join(root, "docs")], { followSymlinks: true });
    expect(ids(documents)).toEqual(["docs/a.md"]);
    expect(skips(skipped)).toEqual([["docs/env.md", "not_a_file"]]);
    expect(skipped[0]?.reason).toMatch(/a system file/);
  });
});

describe("overlapping paths given", () => {
  it("walks a folder given twice, or inside another folder given, once", async () => {
    await write("docs/a.md", "alpha");
    await write("docs/sub/b.md", "beta");
    await write("docs/.hidden.md", "hidden");
    const { documents, skipped } = await readDocuments([
      path.join(root, "docs"),
      path.join(root, "docs/sub"),
      path.join(root, "docs"),
    ]);
    expect(ids(documents)).toEqual(["docs/a.md", "docs/sub/b.md"]);
    expect(skips(skipped)).toEqual([["docs/.hidden.md", "ignored"]]);
  });
});

/** The walk's options at their defaults. */
const DEFAULT_WALK = {
  recursive: true,
  hidden: false,
  noIgnore: false,
  followSymlinks: false,
  include: undefined,
  exclude: undefined,
  extensions: undefined,
  signal: undefined,
};

describe("walkFiles", () => {
  it("gives each regular file the real path it saw (its folder's, joined), and none to a file reached by a link", async () => {
    await write("sub/a.md");
    await symlink(path.join(root, "sub", "a.md"), path.join(root, "alias.md"));
    const real = await realpath(root);
    const { files } = await walkFiles(
      [{ absolute: root, displayPath: root, stats: await stat(root) }],
      DEFAULT_WALK,
    );
    expect(files.map((file) => [path.relative(root, file.displayPath), file.realPath])).toEqual([
      ["alias.md", undefined],
      ["sub/a.md", path.join(real, "sub", "a.md")],
    ]);
  });

  it("names each file as path.join would, however the folder given is spelled", async () => {
    await write("docs/a.md");
    await write("docs/sub/deeper/b.md");
    const docs = path.join(root, "docs");
    const spellings = [
      ".",
      "",
      "docs/",
      "./docs//",
      "../up/../docs",
      "/",
      docs,
      `${docs}/`,
      `${docs}/./sub/..`,
    ];
    for (const displayPath of spellings) {
      const { files } = await walkFiles(
        [{ absolute: docs, displayPath, stats: await stat(docs) }],
        DEFAULT_WALK,
      );
      expect(
        files.map((file) => [file.displayPath, file.absolute]),
        displayPath,
      ).toEqual([
        [path.posix.join(displayPath, "a.md"), path.join(docs, "a.md")],
        [path.posix.join(displayPath, "sub", "deeper", "b.md"), path.join(docs, "sub", "deeper", "b.md")],
      ]);
    }
  });
});
