import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILD_LEASE_FILE, liveBuild, STALE_MS, takeBuildLease } from "./build-lease.js";
import { folderIndexSaved, openFolderIndex, refreshFolderIndex } from "./folder-index.js";
import { folderIndexOptions, topText, twoDocs } from "./folder-index-options.test.util.js";

let dir: string;
let child: ChildProcess | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-lease-"));
});
afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs each of `probes` (a module's source, run through tsx) in its own process, all let go at the same instant:
 * each waits, once loaded, until the test has seen every one ready. Returns what each printed, as JSON.
 */
async function startedTogether(probes: string[]): Promise<unknown[]> {
  const go = join(dir, "go");
  const runs = probes.map((probe, index) => {
    const prelude = `
      import { existsSync as ready_exists, writeFileSync as ready_write } from "node:fs";
      ready_write(${JSON.stringify(join(dir, `ready-${index}`))}, "");
      while (!ready_exists(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 1));`;
    const spawned = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", `${prelude}\n${probe}`],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    spawned.stdout.on("data", (data) => {
      out += data;
    });
    return new Promise<string>((resolve) => spawned.once("exit", () => resolve(out)));
  });
  while ((await readdir(dir)).filter((name) => name.startsWith("ready-")).length < probes.length)
    await new Promise((resolve) => setTimeout(resolve, 20));
  await writeFile(go, "");
  return (await Promise.all(runs)).map((out) => JSON.parse(out));
}

/** The release of a lease this process took (fails the test when another process holds it). */
function taken(attempt: ReturnType<typeof takeBuildLease>): () => void {
  if (!("release" in attempt)) throw new Error(`the lease is held by ${JSON.stringify(attempt.heldBy)}`);
  return attempt.release;
}

/** Another process that stays alive until killed: the pid a live build's lease names. */
async function otherProcess(): Promise<number> {
  child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], { stdio: "ignore" });
  await new Promise((resolve) => child?.once("spawn", resolve));
  return child.pid as number;
}

async function writeLease(folder: string, lease: unknown, renewedAgoMs = 0): Promise<void> {
  const file = join(folder, BUILD_LEASE_FILE);
  await writeFile(file, typeof lease === "string" ? lease : JSON.stringify(lease));
  const when = new Date(Date.now() - renewedAgoMs);
  await utimes(file, when, when);
}

describe("build lease", () => {
  it("is written for this process while held and removed when released; this process never waits on its own", async () => {
    const release = taken(takeBuildLease(join(dir, "index")));
    const file = join(dir, "index", BUILD_LEASE_FILE);
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(liveBuild(join(dir, "index"))).toBeUndefined();
    release();
    expect(existsSync(file)).toBe(false);
    // Released once: a later call leaves the next holder's lease alone.
    const next = taken(takeBuildLease(join(dir, "index")));
    release();
    expect(existsSync(file)).toBe(true);
    next();
  });

  it("is not taken while another live process holds it, which is named; a dead build's lease is replaced", async () => {
    const pid = await otherProcess();
    const startedAt = new Date().toISOString();
    await writeLease(dir, { pid, host: hostname(), startedAt });
    expect(takeBuildLease(dir)).toEqual({ heldBy: { pid, host: hostname(), startedAt } });
    // Nothing of this attempt is left: the other build's lease, and no temporary file.
    expect(JSON.parse(await readFile(join(dir, BUILD_LEASE_FILE), "utf8")).pid).toBe(pid);
    expect(await readdir(dir)).toEqual([BUILD_LEASE_FILE]);
    // Its process killed: the lease is replaced by this one's.
    child?.kill("SIGKILL");
    await new Promise((resolve) => child?.once("exit", resolve));
    const release = taken(takeBuildLease(dir));
    expect(JSON.parse(await readFile(join(dir, BUILD_LEASE_FILE), "utf8")).pid).toBe(process.pid);
    release();
    // Not renewed for longer than STALE_MS (killed on another machine): replaced too.
    await writeLease(dir, { pid: 1, host: `not-${hostname()}`, startedAt }, STALE_MS + 1_000);
    taken(takeBuildLease(dir))();
    expect(await readdir(dir)).toEqual([]);
  });

  it("of processes that try at the same instant, one takes it and the others are told who", async () => {
    const probe = `
      import { takeBuildLease } from ${JSON.stringify(new URL("./build-lease.ts", import.meta.url).pathname)};
      const attempt = takeBuildLease(${JSON.stringify(join(dir, "index"))});
      console.log(JSON.stringify("release" in attempt ? { taken: process.pid } : attempt));
      // Held until the others have tried.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      if ("release" in attempt) attempt.release();`;
    const results = (await startedTogether([probe, probe, probe, probe])) as (
      | { taken: number }
      | { heldBy: { pid: number } }
    )[];
    const takers = results.flatMap((result) => ("taken" in result ? [result.taken] : []));
    expect(takers).toHaveLength(1);
    expect(results.flatMap((result) => ("heldBy" in result ? [result.heldBy.pid] : []))).toEqual(
      Array(3).fill(takers[0]),
    );
    expect(await readdir(join(dir, "index"))).toEqual([]);
  }, 60_000);

  it("is no error when the folder cannot be written (the build reports that when it writes the index)", async () => {
    await writeFile(join(dir, "blocker"), "a file, not a folder");
    const release = taken(takeBuildLease(join(dir, "blocker", "cache")));
    expect(existsSync(join(dir, "blocker", "cache"))).toBe(false);
    expect(() => release()).not.toThrow();
  });

  it("names a live process of this machine whose lease was renewed lately, and nothing else", async () => {
    const pid = await otherProcess();
    const startedAt = new Date().toISOString();
    await writeLease(dir, { pid, host: hostname(), startedAt });
    expect(liveBuild(dir)).toEqual({ pid, host: hostname(), startedAt });
    // Not renewed for longer than STALE_MS: a killed build's, even if its process id were taken again.
    await writeLease(dir, { pid, host: hostname(), startedAt }, STALE_MS + 1_000);
    expect(liveBuild(dir)).toBeUndefined();
    // Another machine's: alive while renewed.
    await writeLease(dir, { pid: 1, host: `not-${hostname()}`, startedAt });
    expect(liveBuild(dir)?.host).toBe(`not-${hostname()}`);
    await writeLease(dir, { pid: 1, host: `not-${hostname()}`, startedAt }, STALE_MS + 1_000);
    expect(liveBuild(dir)).toBeUndefined();
    // Untrusted bytes: anything but a lease is none.
    for (const junk of ["", "{", "[]", JSON.stringify({ pid: -3, host: hostname(), startedAt })]) {
      await writeLease(dir, junk);
      expect(liveBuild(dir)).toBeUndefined();
    }
    await writeLease(dir, { pid, host: hostname(), startedAt: "yesterday-ish" });
    expect(liveBuild(dir)).toBeUndefined();
    // The process gone: no live build.
    await writeLease(dir, { pid, host: hostname(), startedAt });
    child?.kill("SIGKILL");
    await new Promise((resolve) => child?.once("exit", resolve));
    expect(liveBuild(dir)).toBeUndefined();
  });

  it("of two builds that wait for others, started at the same instant, one builds and the other waits for it", async () => {
    // Many small files: listing them takes longer than the two starts are apart, so both list before either builds.
    const many = join(dir, "many");
    await mkdir(many);
    for (let file = 0; file < 1_000; file++)
      await writeFile(
        join(many, `note-${file}.md`),
        `# Note ${file}\n\nThe lease of build ${file} is held.\n`,
      );
    const probe = `
      import { refreshFolderIndex } from ${JSON.stringify(new URL("./folder-index.ts", import.meta.url).pathname)};
      import { folderIndexOptions } from ${JSON.stringify(new URL("./folder-index-options.test.util.ts", import.meta.url).pathname)};
      const { stats } = await refreshFolderIndex(
        folderIndexOptions(${JSON.stringify(dir)}, ["many"], { whileAnotherBuilds: "wait" }),
      );
      console.log(JSON.stringify({ added: stats.sources.added.length, waitedMs: stats.waitedMs }));`;
    const results = (await startedTogether([probe, probe])) as { added: number; waitedMs?: number }[];
    expect(results.map((result) => result.added).sort((a, b) => a - b)).toEqual([0, 1_000]);
    const waited = results.find((result) => result.added === 0);
    expect(waited?.waitedMs).toBeGreaterThan(0);
    expect(results.find((result) => result.added === 1_000)?.waitedMs).toBeUndefined();
  }, 120_000);

  it("an ask that finds another process building the index answers from what it committed, and writes nothing", async () => {
    const docs = await twoDocs(dir);
    await folderIndexSaved(await openFolderIndex(folderIndexOptions(dir, ["docs"])));
    const cache = join(docs, ".ragsynth");
    await writeFile(join(docs, "modes.md"), "# Modes\n\nThe default response mode is refine now.\n");
    await writeFile(join(docs, "new.md"), "# New\n\nA file the other build has not reached.\n");
    const indexFile = join(cache, "ragsynth-index.sqlite");
    const before = (await stat(indexFile)).mtimeMs;
    await writeLease(cache, {
      pid: await otherProcess(),
      host: hostname(),
      startedAt: new Date().toISOString(),
    });
    const notices: { kind: string; message: string }[] = [];
    const asker = () =>
      folderIndexOptions(dir, ["docs"], {
        whileAnotherBuilds: "answer-as-is",
        onNotice: (notice) => notices.push(notice),
      });
    const opened = await openFolderIndex(asker());
    expect(notices).toHaveLength(1);
    expect(notices[0]?.kind).toBe("building");
    expect(notices[0]?.message).toMatch(
      /another ragsynth \(process \d+, since .+\) is building the index in .*\.ragsynth: this answer comes from what it has written so far/,
    );
    expect(await topText(opened.index, "default response mode")).toContain("compact");
    expect(opened.stats.files).toBe(2);
    await folderIndexSaved(opened);
    await opened.index.close();
    expect((await stat(indexFile)).mtimeMs).toBe(before);
    expect(existsSync(join(cache, BUILD_LEASE_FILE))).toBe(true);
    // Once the other process is gone, an ask sees the edits.
    child?.kill("SIGKILL");
    await new Promise((resolve) => child?.once("exit", resolve));
    const asked = await openFolderIndex(asker());
    expect(notices).toHaveLength(1);
    expect(asked.stats.sources).toMatchObject({
      added: [join(docs, "new.md")],
      changed: [join(docs, "modes.md")],
    });
    expect(await topText(asked.index, "default response mode")).toContain("refine");
    await folderIndexSaved(asked);
    await asked.index.close();
    // Its own build took the lease and gave it back.
    expect(existsSync(join(cache, BUILD_LEASE_FILE))).toBe(false);
  });

  it("an opener left to build (the default) builds beside the other build, as before", async () => {
    const docs = await twoDocs(dir);
    await folderIndexSaved(await openFolderIndex(folderIndexOptions(dir, ["docs"])));
    const cache = join(docs, ".ragsynth");
    await writeFile(join(docs, "modes.md"), "# Modes\n\nThe default response mode is refine now.\n");
    await writeLease(cache, {
      pid: await otherProcess(),
      host: hostname(),
      startedAt: new Date().toISOString(),
    });
    const opened = await openFolderIndex(folderIndexOptions(dir, ["docs"]));
    expect(opened.stats.sources.changed).toEqual([join(docs, "modes.md")]);
    expect(await topText(opened.index, "default response mode")).toContain("refine");
    await folderIndexSaved(opened);
    await opened.index.close();
    // Without a lease of its own: the other build's stays, naming it.
    expect(liveBuild(cache)?.pid).toBe(child?.pid);
  });

  it("an index build holds the lease while it writes and leaves none behind", async () => {
    const docs = await twoDocs(dir);
    const cache = join(docs, ".ragsynth");
    let seen: unknown;
    await refreshFolderIndex(
      folderIndexOptions(dir, ["docs"], {
        progress: {
          start: () => {},
          update: () => {
            seen ??= existsSync(join(cache, BUILD_LEASE_FILE)) && liveBuild(cache) === undefined;
          },
          clear: () => {},
        },
      }),
    );
    // While it split, the lease was there and named this process (so this process found no other build).
    expect(seen).toBe(true);
    expect(existsSync(join(cache, BUILD_LEASE_FILE))).toBe(false);
  });
});
