// The command line's own failures: a stalled server, read-only documents, bad numbers, link loops, and
// a huge query in plan's header. Counts and messages only; no timing is asserted.
import { chmod, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "ragsynth/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli, startCli } from "./run-cli.js";

let dir: string;
let docs: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, docs, cleanup } = await copyExampleDocs());
});
afterEach(() => cleanup());

describe("--timeout", () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    // A server that accepts the request and then never sends a byte (for a minute).
    server = await startFakeOpenAIServer({ faults: [{ kind: "slow-first-byte", delayMs: 60_000 }] });
  });
  afterEach(() => server.close());

  it("bounds a stalled server: the call fails with llm_timeout naming --timeout instead of waiting", async () => {
    const result = await runCli([
      "ask",
      docs,
      "-q",
      "What is the default response mode?",
      "--llm",
      `${server.url}#stalled`,
      "--timeout",
      "1",
      "--no-stream",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/within --timeout 1 s\. .*Raise --timeout/);
    expect(result.stdout).toBe("");
  });

  it("rejects a timeout that is not a positive number of seconds, with exit 2", async () => {
    for (const value of ["0", "-3", "soon"]) {
      const result = await runCli(["ask", docs, "-q", "hi", "--timeout", value]);
      expect(result.code, value).toBe(2);
      expect(result.stderr).toContain(`Expected --timeout to be a number of seconds above 0`);
    }
  });
});

describe("usage errors in the CLI's own words", () => {
  it("--context-window -5 says what is wrong with the number, exit 2", async () => {
    const result = await runCli(["ask", docs, "-q", "hi", "--context-window", "-5"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Expected --context-window to be a whole number of at least 1, got "-5".',
    );
  });

  it("--num-output at or above the window names --num-output and --context-window, exit 2, before reading", async () => {
    const result = await runCli([
      "ask",
      docs,
      "-q",
      "hi",
      "--num-output",
      "5000",
      "--context-window",
      "4096",
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /Expected --num-output to be less than the context window \(4096, from --context-window\), got 5000/,
    );
    expect(result.stderr).toMatch(/lower --num-output or raise --context-window/);
    expect(result.stderr).not.toMatch(/numOutput|contextWindow/);
    expect(await readdir(docs)).not.toContain(".ragsynth");
  });

  it("a symbolic link loop on the command line says loop, exit 2", async () => {
    const a = join(dir, "a");
    await symlink(join(dir, "b"), a);
    await symlink(a, join(dir, "b"));
    const result = await runCli(["ask", a, "-q", "hi"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is a symbolic link loop/);
  });

  it("plan shows a 120 KB query in its header cut to 200 characters, with its length", async () => {
    const query = "word ".repeat(24_000);
    const result = await runCli(["plan", docs, "-q", query]);
    expect(result.code, result.stderr).toBe(0);
    const header = result.stdout.split("\n")[0] as string;
    expect(header.length).toBeLessThan(300);
    expect(header).toMatch(/^Plan for "word word .*…" \(119,999 characters\)$/);
  });
});

describe("a read-only documents folder", () => {
  it("is still answered: the index goes to XDG_CACHE_HOME with a notice", async () => {
    const cacheHome = await mkdtemp(join(tmpdir(), "ragsynth-xdg-"));
    try {
      await chmod(cacheHome, 0o777);
      await chmod(dir, 0o755);
      await chmod(docs, 0o555);
      // root ignores permission bits, so run the CLI as an unprivileged user there.
      const asUser = process.getuid?.() === 0 ? { uid: 65_534, gid: 65_534 } : {};
      const { done } = startCli(["ask", docs, "-q", "What is the default response mode?", "--no-stream"], {
        env: { XDG_CACHE_HOME: cacheHome, HOME: cacheHome },
        ...asUser,
      });
      const result = await done;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/is read-only, so the index is kept in .*ragsynth-xdg-.*ragsynth/);
      expect(result.stdout).toMatch(/compact/);
      // Beside the compiled rank tables (ragsynth/v8), the index's folder is named by a hash of the documents' folder.
      const hashed = (await readdir(join(cacheHome, "ragsynth"))).find((entry) =>
        /^[0-9a-f]{16}$/.test(entry),
      );
      expect(await readdir(join(cacheHome, "ragsynth", hashed as string))).toContain("ragsynth-index.sqlite");
      expect(await readdir(docs)).not.toContain(".ragsynth");
    } finally {
      await chmod(docs, 0o755);
      await rm(cacheHome, { recursive: true, force: true });
    }
  });
});
