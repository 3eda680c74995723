import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExampleDocs, runCli } from "./run-cli.js";

// A module resolve hook (on the loader thread) appends every resolved URL to a log file, and the process appends
// the CommonJS files in require's cache (gpt-tokenizer is required) when it exits. Counts only, never times.
const probe = (log: string) => `
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
const hooks = \`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + "\\\\n");
  return result;
}\`;
register("data:text/javascript," + encodeURIComponent(hooks));
process.on("exit", () => {
  appendFileSync(${JSON.stringify(log)}, Object.keys(createRequire(import.meta.url).cache).join("\\n") + "\\n");
});
`;

const OPTIONAL = ["openai", "@opentelemetry", "bullmq", "ioredis", "zod", "@streamparser/json", "image-size"];

describe("what the CLI loads", () => {
  let docs: { dir: string; docs: string; cleanup: () => Promise<void> };
  let probeDir: string;

  beforeAll(async () => {
    docs = await copyExampleDocs();
    probeDir = await mkdtemp(join(tmpdir(), "ragsynth-modules-"));
    const built = await runCli(["index", docs.docs]);
    expect(built.code).toBe(0);
  });
  afterAll(async () => {
    await docs.cleanup();
    await rm(probeDir, { recursive: true, force: true });
  });

  /** The files `ragsynth <args>` loaded, and its exit code. */
  async function loaded(
    name: string,
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ files: string[]; code: number | null; stdout: string }> {
    const log = join(probeDir, `${name}.log`);
    const probeFile = join(probeDir, `${name}.mjs`);
    await writeFile(log, "");
    await writeFile(probeFile, probe(log));
    const result = await runCli(args, { env: { NODE_OPTIONS: `--import ${probeFile}`, ...env } });
    const files = (await readFile(log, "utf8")).split("\n").map((line) => line.replaceAll("\\", "/"));
    return { files, code: result.code, stdout: result.stdout };
  }
  // gpt-tokenizer's encoder class: required whenever a rank table is loaded, with or without its compiled code.
  const loadsRankTable = (files: string[]) =>
    files.some((file) => file.endsWith("/gpt-tokenizer/cjs/GptEncoding.js"));
  const inPackage = (files: string[], name: string) =>
    files.filter((file) => file.includes(`/node_modules/${name}/`)).length;

  it("an offline ask over a built index loads the tokenizer and none of the optional packages", async () => {
    const { files, code } = await loaded("ask", [
      "ask",
      docs.docs,
      "--query",
      "What is the default response mode?",
      "--no-stream",
    ]);
    expect(code).toBe(0);
    expect(inPackage(files, "gpt-tokenizer")).toBeGreaterThan(0);
    expect(Object.fromEntries(OPTIONAL.map((name) => [name, inPackage(files, name)]))).toEqual(
      Object.fromEntries(OPTIONAL.map((name) => [name, 0])),
    );
    expect(files.filter((file) => file.endsWith("/src/cli/commands.ts"))).toHaveLength(1);
  });

  it("keeps piece counts and the rank table's compiled code in the user's cache folder: a second ask loads no table; NODE_DISABLE_COMPILE_CACHE=1 keeps no code", async () => {
    const cacheHome = join(probeDir, "cache-home");
    const ask = ["ask", docs.docs, "--query", "What is the default response mode?", "--no-stream"];
    const first = await loaded("first", ask, { XDG_CACHE_HOME: cacheHome });
    expect(first.code).toBe(0);
    expect(loadsRankTable(first.files)).toBe(true);
    const v8 = join(cacheHome, "ragsynth", "v8");
    const files = (await readdir(v8)).sort();
    expect(files).toEqual([
      expect.stringMatching(/^ascii-ranks-cl100k_base-.*\.bin$/),
      expect.stringMatching(/^gpt-tokenizer-cl100k_base-.*\.v8cache$/),
      expect.stringMatching(/^piece-counts-cl100k_base-.*\.v8$/),
    ]);
    const written = await Promise.all(files.map(async (file) => (await stat(join(v8, file))).mtimeMs));

    // Every piece the second ask counts (the template, the query, the retrieved chunks) was counted by the first.
    const second = await loaded("second", ask, { XDG_CACHE_HOME: cacheHome });
    expect(second.code).toBe(0);
    expect(loadsRankTable(second.files)).toBe(false);
    expect(second.stdout.replace(/ · [\d.]+ m?s · /, " · ")).toBe(
      first.stdout.replace(/ · [\d.]+ m?s · /, " · "),
    );
    expect(await Promise.all(files.map(async (file) => (await stat(join(v8, file))).mtimeMs))).toEqual(
      written,
    );

    // A word of ASCII letters no run has counted is counted over the ASCII rank file the first ask left; one with
    // another letter loads the table again. Both are saved for the next run.
    const ascii = [...ask.slice(0, 3), "What is the default response mode of zxqvbnm?", "--no-stream"];
    expect(loadsRankTable((await loaded("unseen-ascii", ascii, { XDG_CACHE_HOME: cacheHome })).files)).toBe(
      false,
    );
    const other = [...ask.slice(0, 3), "What is the default response mode of zxqvbnmé?", "--no-stream"];
    expect(loadsRankTable((await loaded("unseen", other, { XDG_CACHE_HOME: cacheHome })).files)).toBe(true);
    expect(loadsRankTable((await loaded("seen", other, { XDG_CACHE_HOME: cacheHome })).files)).toBe(false);

    const offHome = join(probeDir, "cache-off");
    const off = await runCli(ask, { env: { XDG_CACHE_HOME: offHome, NODE_DISABLE_COMPILE_CACHE: "1" } });
    expect(off.stdout.replace(/ · [\d.]+ m?s · /, " · ")).toBe(
      first.stdout.replace(/ · [\d.]+ m?s · /, " · "),
    );
    // Data, not compiled code: the piece counts and the ASCII ranks.
    expect((await readdir(join(offHome, "ragsynth", "v8"))).sort()).toEqual([
      expect.stringMatching(/^ascii-ranks-cl100k_base-.*\.bin$/),
      expect.stringMatching(/^piece-counts-cl100k_base-.*\.v8$/),
    ]);
  });

  it("--version and a usage error load no command and no tokenizer", async () => {
    for (const [name, args, exitCode] of [
      ["version", ["--version"], 0],
      ["usage", ["ask", docs.docs, "--mode", "nonsense", "--query", "q"], 2],
    ] as const) {
      const { files, code } = await loaded(name, [...args]);
      expect(code).toBe(exitCode);
      expect(files.some((file) => file.includes("/src/cli/bin.ts"))).toBe(true);
      expect(files.filter((file) => file.includes("/src/cli/commands.ts"))).toEqual([]);
      expect(inPackage(files, "gpt-tokenizer")).toBe(0);
    }
  });
});
