// Ctrl-C in a real terminal: the CLI runs under `script` (a pseudo-terminal, so the progress line is on),
// and ^C typed into that terminal makes the line discipline send SIGINT, as a user's keyboard does.
import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./run-cli.js";

const BIN = join(ROOT, "src", "cli", "bin.ts");
const hasScript = spawnSync("script", ["--version"]).status === 0;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ragsynth-interrupt-"));
  const docs = join(dir, "docs");
  await mkdir(docs);
  // Enough files that reading them takes a while on any machine.
  const paragraph = "Zebras graze on the plain while the release notes describe branch protection. ".repeat(
    60,
  );
  await Promise.all(
    Array.from({ length: 3000 }, (_, index) =>
      writeFile(join(docs, `doc${index}.md`), `${index} ${paragraph}`),
    ),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.skipIf(!hasScript && process.env.CI !== "true")("Ctrl-C in a terminal", { timeout: 60_000 }, () => {
  it.each([
    // Interrupted promptly, the next phase never starts.
    ["reading documents", /Reading documents/, (screen: string) => expect(screen).not.toMatch(/Splitting/)],
    // Once splitting has counted a file: the tokenizer's rank table (loaded on the first count) is in.
    // Interrupted promptly, the last count shown is short of the 3000 files.
    [
      "splitting them (CPU-bound, in slices)",
      /Splitting into chunks \[[^\]]*\] [1-9]\d*\/3000/,
      (screen: string) => {
        const counts = [...screen.matchAll(/Splitting into chunks \[[^\]]*\] (\d+)\/3000/g)];
        expect(Number(counts.at(-1)?.[1]), screen).toBeLessThan(3000);
      },
    ],
  ])(
    "exits 130 on ^C while %s, without finishing it, and leaves the progress line erased",
    async (_, phase, unfinished) => {
      const command = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(BIN)} index ${JSON.stringify(join(dir, "docs"))}`;
      const child = spawn("script", ["-qfec", command, "/dev/null"], {
        cwd: ROOT,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let screen = "";
      let interrupted = false;
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        screen += chunk;
        if (!interrupted && phase.test(screen)) {
          interrupted = true;
          child.stdin.write("\u0003");
        }
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(interrupted, screen).toBe(true);
      expect(code, screen).toBe(130);
      // No timing is asserted: the work left undone shows the ^C was acted on at once.
      unfinished(screen);
      expect(screen).not.toMatch(/Indexed \d+ files/);
      // The progress line is erased before the last words.
      expect(screen.replaceAll(`\r${String.fromCharCode(27)}[2K`, "<erase>")).toMatch(
        /<erase>(ragsynth: interrupted\.\r\n)?$/,
      );
    },
  );
});
