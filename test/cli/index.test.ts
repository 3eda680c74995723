import { spawn } from "node:child_process";
import { appendFile, mkdir, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import Database from "better-sqlite3";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, startCli, waitForOutput } from "./run-cli.js";

/** Runs SQL on an index file with the engine's own driver, as a user with `sqlite3` would. */
function sql<T>(file: string, run: (db: Database.Database) => T): T {
  const db = new Database(file);
  try {
    return run(db);
  } finally {
    db.close();
  }
}

let dir: string;
let docs: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, docs, cleanup } = await copyExampleDocs());
});
afterEach(() => cleanup());

async function indexJSON(args: string[], env: Record<string, string> = {}) {
  const result = await runCli(["index", ...args, "--json"], { env });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe("ragsynth index", () => {
  it("builds the index in .ragsynth/ beside the documents and reuses it; offline it stores no vectors", async () => {
    const first = await indexJSON([docs]);
    // Hashing vectors cost less to compute (for a dense search) than to store: none are embedded up front.
    expect(first).toMatchObject({
      files: 6,
      chunks: 6,
      embedded: 0,
      reused: 0,
      cacheDir: join(docs, ".ragsynth"),
    });
    expect(await readdir(join(docs, ".ragsynth"))).toEqual(["ragsynth-index.sqlite"]);

    const second = await indexJSON([docs]);
    expect(second.sources.unchanged).toHaveLength(6);

    await appendFile(join(docs, "cli.md"), "\nThe index is kept as one JSON file.\n");
    const third = await indexJSON([docs]);
    expect(third.sources).toMatchObject({ changed: [expect.stringMatching(/cli\.md$/)] });
    expect(third.sources.unchanged).toHaveLength(5);

    const asked = await runCli(["ask", docs, "-q", "What is the default response mode?", "--json"]);
    expect(JSON.parse(asked.stdout).index.sources.unchanged).toHaveLength(6);
  }, 90_000); // five CLI runs

  it("--chunk-size makes smaller chunks; an index built with another size is built again, the same size reused", async () => {
    const first = await indexJSON([docs]);
    const small = await indexJSON([docs, "--chunk-size", "64"]);
    // Every file is split again (none kept from the 1,024-token build), into more chunks.
    expect(small.sources.unchanged).toEqual([]);
    expect(small.chunks).toBeGreaterThan(first.chunks);
    const again = await indexJSON([docs, "--chunk-size", "64"]);
    expect(again.sources.unchanged).toHaveLength(6);
    expect(again.chunks).toBe(small.chunks);
    const file = join(docs, ".ragsynth", "ragsynth-index.sqlite");
    const stored = sql(file, (db) => db.prepare("SELECT value FROM meta WHERE key = 'splitter'").get()) as {
      value: string;
    };
    expect(stored.value).toMatch(/^block:64\/12:/);
    // Back to the default: built again, as many chunks as the first time.
    const back = await indexJSON([docs]);
    expect(back.sources.unchanged).toEqual([]);
    expect(back.chunks).toBe(first.chunks);

    const bad = await runCli(["index", docs, "--chunk-size", "64", "--chunk-overlap", "64"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--chunk-overlap \(64\) must be less than --chunk-size \(64\)/);
    // Found before anything runs: no notice about the model comes first.
    const askedBadly = await runCli([
      "ask",
      docs,
      "-q",
      "modes?",
      "--chunk-size",
      "50",
      "--chunk-overlap",
      "80",
    ]);
    expect(askedBadly.code).toBe(2);
    expect(askedBadly.stderr).toMatch(
      /^ragsynth: --chunk-overlap \(80\) must be less than --chunk-size \(50\)/,
    );
    const zero = await runCli(["ask", docs, "-q", "modes?", "--chunk-size", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/Expected --chunk-size to be a whole number of at least 1, got "0"/);
  }, 90_000); // seven CLI runs

  it("says why an index built with other settings is built again (another analyzer, another chunk size)", async () => {
    const first = await indexJSON([docs]);
    const file = join(docs, ".ragsynth", "ragsynth-index.sqlite");
    const analyzer = sql(file, (db) =>
      db.prepare("SELECT value FROM meta WHERE key = 'analyzer'").pluck().get(),
    );
    // As an older ragsynth left it: its BM25 analyzer made other terms.
    sql(file, (db) => db.prepare("UPDATE meta SET value = '1' WHERE key = 'analyzer'").run());
    const rebuilt = await runCli(["index", docs, "--json"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toContain(
      `ragsynth: the cached index in ${join(docs, ".ragsynth")} was built with another BM25 analyzer (version 1; now ${analyzer}); building it again.`,
    );
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ chunks: first.chunks, sources: { unchanged: [] } });
    // Built for these settings now: nothing more to say.
    const again = await runCli(["index", docs, "--json"]);
    expect(again.stderr).not.toContain("building it again");

    // Without a refresh nothing is built: the error names what the index there was built with.
    const other = await runCli(["ask", docs, "-q", "modes?", "--chunk-size", "64", "--no-refresh"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      /but the one there was built with another splitter \(block:1024\/200:\S+; now block:64\/12:\S+\)/,
    );
    const small = await runCli(["index", docs, "--chunk-size", "64"]);
    expect(small.stderr).toMatch(
      /was built with another splitter \(block:1024\/200:\S+; now block:64\/12:\S+\); building it again\./,
    );
  }, 60_000);

  it("--threads splits the files in worker threads into the same rows as the main thread", async () => {
    const rows = (folder: string) =>
      sql(join(folder, "ragsynth-index.sqlite"), (db) => ({
        chunks: db.prepare("SELECT node_id, content_hash, length, node FROM chunks ORDER BY key").all(),
        postings: db
          .prepare("SELECT term, first_key, count, block FROM postings ORDER BY term, first_key")
          .all(),
      }));
    const here = await indexJSON([docs, "--cache-dir", join(dir, "here"), "--threads", "0"]);
    const threaded = await indexJSON([docs, "--cache-dir", join(dir, "threaded"), "--threads", "2"]);
    expect(here.threads).toBe(0);
    expect(threaded.threads).toBe(2);
    expect(threaded.chunks).toBe(here.chunks);
    expect(rows(join(dir, "threaded"))).toEqual(rows(join(dir, "here")));
    // Said on the summary line too; nothing left to split, no threads started.
    const shown = await runCli(["index", docs, "--cache-dir", join(dir, "shown"), "--threads", "2"]);
    expect(shown.stdout).toMatch(/\(parsed and split in 2 threads\)/);
    expect((await indexJSON([docs, "--cache-dir", join(dir, "threaded"), "--threads", "2"])).threads).toBe(0);

    const bad = await runCli(["index", docs, "--threads", "-1"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--threads/);
  }, 90_000); // five CLI runs

  it("re-indexes unchanged files from the sources table, reading no chunk and no BM25 posting", async () => {
    await indexJSON([docs]);
    const file = join(docs, ".ragsynth", "ragsynth-index.sqlite");
    // Damage every chunk and posting: an unchanged re-index that read a chunk or a posting would fail.
    const damaged = sql(file, (db) => {
      db.exec("CREATE TABLE kept AS SELECT * FROM postings; UPDATE postings SET block = X'FF'");
      return db.prepare(`UPDATE chunks SET node = '{"damaged'`).run().changes;
    });
    expect(damaged).toBe(6);
    const again = await indexJSON([docs]);
    expect(again).toMatchObject({ files: 6, chunks: 6, sources: { unchanged: expect.any(Array) } });
    expect(again.sources.unchanged).toHaveLength(6);
    // The postings back (an ask reads them first), the chunks still damaged.
    sql(file, (db) =>
      db.exec("DELETE FROM postings; INSERT INTO postings SELECT * FROM kept; DROP TABLE kept"),
    );
    const asked = await runCli(["ask", docs, "-q", "What is the default response mode?"]);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toMatch(/holds a chunk that is not valid \(deflated\) JSON/);
  });

  it("rebuilds a cached index of the former format (gzip JSON Lines) with a notice instead of refusing it", async () => {
    const cache = join(docs, ".ragsynth");
    await mkdir(cache, { recursive: true });
    // What ragsynth 0.2 left behind: its index file and a vectors file.
    await writeFile(
      join(cache, "ragsynth-index.json.gz"),
      gzipSync('{"format":"ragsynth-vector-index","version":4}\n'),
    );
    await writeFile(join(cache, "ragsynth-vectors-0123456789abcdef.bin"), "old vectors");
    const asked = await runCli(["ask", docs, "-q", "What is the default response mode?"]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toMatch(
      /cached index in .* was written by another ragsynth version .*; rebuilding it/,
    );
    expect(asked.stdout).toContain("The default response mode is `compact`.");
    // The old files are gone, the SQLite index is there (with its WAL files while a connection may be open).
    expect((await readdir(cache)).filter((name) => !name.endsWith("-wal") && !name.endsWith("-shm"))).toEqual(
      ["ragsynth-index.sqlite"],
    );
    const again = await indexJSON([docs]);
    expect(again.sources.unchanged).toHaveLength(6);
  });

  it("rebuilds a cached SQLite index of an older layout with a notice, and answers from the rebuilt one", async () => {
    await indexJSON([docs]);
    const file = join(docs, ".ragsynth", "ragsynth-index.sqlite");
    // What an older ragsynth left: its layout version (2: a row per posting) on a file this one cannot read.
    sql(file, (db) => {
      db.prepare("DROP TABLE postings").run();
      db.pragma("user_version = 2");
    });
    const asked = await runCli(["ask", docs, "-q", "What is the default response mode?"]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toMatch(
      /cached index in .* was written by another ragsynth version .*; rebuilding it/,
    );
    expect(asked.stdout).toContain("The default response mode is `compact`.");
    expect(sql(file, (db) => db.pragma("user_version", { simple: true }))).not.toBe(2);
    const again = await indexJSON([docs]);
    expect(again.sources.unchanged).toHaveLength(6);
  });

  it("finds the stored files whichever way the folder is spelled (absolute, relative, ./)", async () => {
    const run = async (args: string[]) => {
      const result = await runCli([...args, "--json"], { cwd: dir });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout);
    };
    const first = await run(["index", docs]);
    expect(first.sources.unchanged ?? []).toHaveLength(0);
    const relative = await run(["index", "./docs"]);
    expect(relative.sources.unchanged).toHaveLength(6);
    const asked = await run(["ask", "docs", "-q", "What is the default response mode?"]);
    expect(asked.index.sources.unchanged).toHaveLength(6);
    // Sources are shown relative to the working folder even though the index was built from the absolute path.
    expect(asked.sources[0].file).toMatch(/^docs\//);
  });

  it("does not read a file again whose size and modification time are unchanged", async () => {
    await indexJSON([docs]);
    const file = join(docs, "cli.md");
    const { size, mtime } = await stat(file);
    // Same size and time, but NUL bytes: a file read again would be skipped as binary and leave the index.
    await writeFile(file, Buffer.alloc(size, 0));
    await utimes(file, mtime, mtime);
    const again = await indexJSON([docs]);
    expect(again.sources.unchanged).toHaveLength(6);
    expect(again.skipped).toEqual([]);
  });

  it("gives the sources of an ask the files' own times after they were given new ones, their bytes kept", async () => {
    await indexJSON([docs]);
    // As a checkout or a copy leaves them: new times, the same bytes (the index records the times, reads nothing).
    const when = new Date("2027-01-02T03:04:05.000Z");
    for (const name of await readdir(docs)) await utimes(join(docs, name), when, when);
    const asked = await runCli(["ask", docs, "-q", "What is the default response mode?", "--json"]);
    expect(asked.code, asked.stderr).toBe(0);
    const { index, sources } = JSON.parse(asked.stdout);
    expect(index.sources.changed).toEqual([]);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source.metadata.last_modified_at).toBe(when.toISOString());
  });

  it("weighs dense queries by the same IDF when unchanged files are not read again", async () => {
    const ask = async () => {
      const result = await runCli([
        "ask",
        docs,
        "-q",
        "default response mode",
        "--retrieval",
        "dense",
        "--json",
      ]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout).sources.map((source: { nodeId: string; score: number }) => [
        source.nodeId,
        source.score,
      ]);
    };
    const fresh = await ask(); // builds the index: every file read
    expect(await ask()).toEqual(fresh); // unchanged: no file read, IDF from the stored chunks
  });

  it("prints a summary line, honours --cache-dir, and --rebuild embeds everything again", async () => {
    const cacheDir = join(dir, "cache");
    const { code, stdout, stderr } = await runCli(["index", docs, "--cache-dir", cacheDir]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(
      /^Indexed 6 files: 6 chunks, in [\d.]+ m?s · cache .*cache · hashing-tfidf-v2:1024\n$/,
    );
    expect(await readdir(cacheDir)).toEqual(["ragsynth-index.sqlite"]);
    const rebuilt = await indexJSON([docs, "--cache-dir", cacheDir, "--rebuild"]);
    expect(rebuilt.sources.added).toHaveLength(6);
  });

  it("exits 1 with index_save, the path and --cache-dir when the cache folder cannot be written", async () => {
    const blocker = join(dir, "blocker");
    await writeFile(blocker, "a file, not a folder");
    const cacheDir = join(blocker, "cache");
    const { code, stdout, stderr } = await runCli(["index", docs, "--cache-dir", cacheDir]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(
      `ragsynth: Could not save the index to ${join(cacheDir, "ragsynth-index.sqlite")}`,
    );
    expect(stderr).toMatch(/Pass --cache-dir with a folder you can write to\.\n$/);
    const json = await runCli(["index", docs, "--cache-dir", cacheDir, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "index_save", exitCode: 1 } });
  });

  it("an ask whose index cannot be written prints the answer, then exits 1 with index_save (--json: the error only)", async () => {
    const blocker = join(dir, "blocker");
    await writeFile(blocker, "a file, not a folder");
    const cacheDir = join(blocker, "cache");
    const ask = ["ask", docs, "-q", "What is the default response mode?", "--cache-dir", cacheDir];
    const { code, stdout, stderr } = await runCli([...ask, "--no-stream"]);
    expect(code).toBe(1);
    expect(stdout).toContain("The default response mode is `compact`.");
    expect(stderr).toContain(
      `ragsynth: Could not save the index to ${join(cacheDir, "ragsynth-index.sqlite")}`,
    );
    const json = await runCli([...ask, "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "index_save", exitCode: 1 } });
  });

  it("an ask after an edit answers from the edited file, and has saved the index when it exits", async () => {
    await indexJSON([docs]);
    await appendFile(join(docs, "cli.md"), "\nThe zebra-striped banner marks a stale index.\n");
    // The ask writes the index while it answers (persist: "background"), and waits for the write before exiting.
    const asked = await runCli(["ask", docs, "-q", "What does the zebra-striped banner mark?", "--json"]);
    expect(asked.code, asked.stderr).toBe(0);
    const answer = JSON.parse(asked.stdout);
    expect(answer.answer).toContain("zebra-striped banner marks a stale index");
    expect(answer.index.sources.changed).toEqual([expect.stringMatching(/cli\.md$/)]);
    const after = await indexJSON([docs]);
    expect(after.sources.unchanged).toHaveLength(6);
    expect(after.sources.changed).toEqual([]);
  });

  it("an ask on a folder whose files keep their times lists nothing again; an edited file is read again alone", async () => {
    // Times well in the past: a listing made within seconds of a change is not remembered (it could miss it).
    const day = Date.now() / 1000 - 86_400;
    for (const name of await readdir(docs)) await utimes(join(docs, name), day, day);
    await utimes(docs, day, day);
    await indexJSON([docs]);
    // Making .ragsynth/ gave the folder a new time.
    await utimes(docs, day, day);
    // Found up to date: remembered (the build before it wrote the index, and remembers nothing).
    expect((await indexJSON([docs])).remembered).toBeUndefined();
    expect(await readdir(join(docs, ".ragsynth"))).toContain("listing.json");
    const ask = async (question: string) => {
      const asked = await runCli(["ask", docs, "-q", question, "--json"]);
      expect(asked.code, asked.stderr).toBe(0);
      return JSON.parse(asked.stdout);
    };
    const unchanged = await ask("What is the default response mode?");
    expect(unchanged.index).toMatchObject({ remembered: { relisted: 0, rowsRead: false }, files: 6 });
    expect(unchanged.index.sources.unchanged).toHaveLength(6);
    await appendFile(join(docs, "cli.md"), "\nThe zebra-striped banner marks a stale index.\n");
    await utimes(join(docs, "cli.md"), day + 60, day + 60);
    const edited = await ask("What does the zebra-striped banner mark?");
    expect(edited.index.remembered).toEqual({ relisted: 1, rowsRead: false });
    expect(edited.index.sources.changed).toEqual([expect.stringMatching(/cli\.md$/)]);
    expect(edited.index.sources.unchanged).toHaveLength(5);
    expect(edited.answer).toContain("zebra-striped banner marks a stale index");
    // That ask remembered the listing again with the rows it wrote: the next edit is listed and built alone too.
    await appendFile(join(docs, "optimizer.md"), "\nThe okapi lantern glows when a chunk is trimmed.\n");
    await utimes(join(docs, "optimizer.md"), day + 120, day + 120);
    const again = await ask("When does the okapi lantern glow?");
    expect(again.index.remembered).toEqual({ relisted: 1, rowsRead: false });
    expect(again.index.sources.changed).toEqual([expect.stringMatching(/optimizer\.md$/)]);
    expect(again.answer).toContain("okapi lantern glows when a chunk is trimmed");
    expect((await ask("What is the default response mode?")).index.remembered).toEqual({
      relisted: 0,
      rowsRead: false,
    });
    // A new file changes its folder's time: the folder is listed in full.
    await writeFile(join(docs, "new.md"), "# New\n\nA page added later.\n");
    const added = await ask("What is the page added later?");
    expect(added.index.remembered).toBeUndefined();
    expect(added.index.sources.added).toEqual([expect.stringMatching(/new\.md$/)]);
  }, 120_000); // nine CLI runs

  it("ask --no-refresh answers from the index as built, without reading the files again; with no index it says to build one", async () => {
    const none = await runCli(["ask", docs, "--no-refresh", "-q", "What is the default response mode?"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("ragsynth index");
    expect(none.stderr).toContain("--no-refresh");
    expect(none.stderr).not.toContain("--rebuild");
    expect(await readdir(docs)).not.toContain(".ragsynth");
    await indexJSON([docs]);
    await appendFile(join(docs, "cli.md"), "\nThe zebra-striped banner marks a stale index.\n");
    const asked = await runCli([
      "ask",
      docs,
      "--no-refresh",
      "-q",
      "What does the zebra-striped banner mark?",
      "--json",
    ]);
    expect(asked.code, asked.stderr).toBe(0);
    const answer = JSON.parse(asked.stdout);
    expect(answer.answer).not.toContain("zebra-striped banner");
    expect(answer.index.sources).toMatchObject({ added: [], changed: [], removed: [] });
    expect(answer.index.sources.unchanged).toHaveLength(6);
    expect(answer.index.asIs).toEqual({ reason: "no-refresh" });
    // The index was not written: a refreshing run still finds the edit.
    expect((await indexJSON([docs])).sources.changed).toEqual([expect.stringMatching(/cli\.md$/)]);
    const both = await runCli(["ask", docs, "--no-refresh", "--rebuild", "-q", "Anything?"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--no-refresh");
  });

  it("an ask while another process builds the index answers from what it wrote, with a note (plan too)", async () => {
    await indexJSON([docs]);
    await appendFile(join(docs, "cli.md"), "\nThe zebra-striped banner marks a stale index.\n");
    // A live build's lease, as `ragsynth index` holds it: another process of this machine, renewed just now.
    const builder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], { stdio: "ignore" });
    await new Promise((resolve) => builder.once("spawn", resolve));
    try {
      const lease = { pid: builder.pid, host: hostname(), startedAt: new Date().toISOString() };
      await writeFile(join(docs, ".ragsynth", "ragsynth-index.building"), JSON.stringify(lease));
      const question = ["-q", "What does the zebra-striped banner mark?", "--json"];
      for (const command of ["ask", "plan"]) {
        const asked = await runCli([command, docs, ...question]);
        expect(asked.code, asked.stderr).toBe(0);
        expect(asked.stderr).toContain(`another ragsynth (process ${builder.pid}, since ${lease.startedAt})`);
        const { index } = JSON.parse(asked.stdout);
        expect(index.sources.changed).toEqual([]);
        // Said in the JSON too, for a script that reads no stderr.
        expect(index.asIs).toEqual({
          reason: "another-build",
          builder: { pid: builder.pid, host: hostname(), startedAt: lease.startedAt },
        });
      }
      // Nothing was written: the edit is still news to a refreshing run.
      builder.kill("SIGKILL");
      await new Promise((resolve) => builder.once("exit", resolve));
      const after = await runCli(["ask", docs, ...question]);
      expect(after.stderr).not.toContain("another ragsynth");
      expect(JSON.parse(after.stdout).index.sources.changed).toEqual([expect.stringMatching(/cli\.md$/)]);
      expect(JSON.parse(after.stdout).index.asIs).toBeUndefined();
    } finally {
      builder.kill("SIGKILL");
    }
  });

  it("an index while another process builds waits for it, then indexes what it left; Ctrl-C stops the wait", async () => {
    await indexJSON([docs]);
    await appendFile(join(docs, "cli.md"), "\nThe zebra-striped banner marks a stale index.\n");
    const builder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], { stdio: "ignore" });
    await new Promise((resolve) => builder.once("spawn", resolve));
    const leaseFile = join(docs, ".ragsynth", "ragsynth-index.building");
    try {
      const lease = { pid: builder.pid, host: hostname(), startedAt: new Date().toISOString() };
      await writeFile(leaseFile, JSON.stringify(lease));
      const note = `another ragsynth (process ${builder.pid}, since ${lease.startedAt}) is building the index`;
      // Ctrl-C while waiting: the run stops, and the builder's lease stays.
      const stopped = startCli(["index", docs, "--json"]);
      await waitForOutput(stopped.output, ({ stderr }) => stderr.includes(note));
      stopped.child.kill("SIGINT");
      const interrupted = await stopped.done;
      expect(interrupted.code).toBe(130);
      expect(JSON.parse(await readFile(leaseFile, "utf8"))).toEqual(lease);
      // Waiting: said, and nothing done while the builder lives.
      const waiting = startCli(["index", docs, "--json"]);
      await waitForOutput(waiting.output, ({ stderr }) => stderr.includes(note));
      expect(waiting.output().stderr).toContain("waiting for it to finish");
      expect(waiting.child.exitCode).toBeNull();
      // The build ends (its process is gone): the waiting run indexes what it left, the edit.
      builder.kill("SIGKILL");
      const done = await waiting.done;
      expect(done.code, done.stderr).toBe(0);
      const stats = JSON.parse(done.stdout);
      expect(stats.sources.changed).toEqual([expect.stringMatching(/cli\.md$/)]);
      expect(stats.waitedMs).toBeGreaterThan(0);
      expect(stats.durationMs).toBeGreaterThanOrEqual(stats.waitedMs);
    } finally {
      builder.kill("SIGKILL");
    }
  });

  it("two index runs started together: one builds, the other waits for it and finds every file indexed", async () => {
    // Enough text that the first build outlasts the second run's start (each loads the CLI from its sources).
    const many = join(dir, "many");
    await mkdir(many);
    const words = ["lease", "index", "folder", "build", "answer", "chunk", "store", "query", "token", "edit"];
    for (let file = 0; file < 300; file++) {
      const paragraphs = Array.from({ length: 40 }, (_, paragraph) =>
        Array.from(
          { length: 30 },
          (_, word) =>
            `${words[(file * 7 + paragraph * 3 + word) % words.length]}${word % 5 === 0 ? file : ""}`,
        ).join(" "),
      );
      await writeFile(join(many, `note-${file}.md`), `# Note ${file}\n\n${paragraphs.join(".\n\n")}.\n`);
    }
    const runs = [startCli(["index", many, "--json"]), startCli(["index", many, "--json"])];
    const results = await Promise.all(runs.map((run) => run.done));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const stats = results.map((result) => JSON.parse(result.stdout));
    const built = stats.filter((run) => run.sources.added.length === 300);
    const waited = stats.filter((run) => run.waitedMs !== undefined);
    expect(built).toHaveLength(1);
    expect(waited).toHaveLength(1);
    expect(waited[0]).toMatchObject({ files: 300, sources: { added: [], changed: [], removed: [] } });
    expect(results.find((result) => JSON.parse(result.stdout).waitedMs !== undefined)?.stderr).toContain(
      "is building the index",
    );
    expect(await readdir(join(many, ".ragsynth"))).not.toContain("ragsynth-index.building");
  }, 120_000);

  describe("with a model embedding model", () => {
    let server: FakeOpenAIServer;
    beforeEach(async () => {
      server = await startFakeOpenAIServer();
    });
    afterEach(() => server.close());

    it("sends only changed chunks to the embedding server", async () => {
      const embed = ["--embed", `${server.url}#fake-embed`];
      expect(await indexJSON([docs, ...embed])).toMatchObject({ embedded: 6 });
      const texts = () =>
        server.requests
          .filter((request) => request.path === "/v1/embeddings")
          .flatMap((request) => (request.body as { input: string[] }).input);
      expect(texts()).toHaveLength(6);
      await appendFile(join(docs, "optimizer.md"), "\nA new closing sentence.\n");
      expect(await indexJSON([docs, ...embed])).toMatchObject({ embedded: 1, reused: 5 });
      expect(texts()).toHaveLength(7);
      expect(texts()[6]).toContain("A new closing sentence.");
    });
  });
});
