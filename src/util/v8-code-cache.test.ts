import { appendFile, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runInFreshProcess } from "./fresh-process.test.util.js";
import { runWithCodeCache } from "./v8-code-cache.js";

// A CommonJS file with a function that is compiled only when first called, and a module loaded on first use.
const LIBRARY = `
exports.double = (x) => x * 2;
exports.filename = __filename;
exports.later = function later(n) {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const text = String(i).padStart(8, "0");
    total += text.split("").reduce((sum, digit) => sum + Number(digit), 0) % 7;
  }
  return total;
};
exports.importPath = () => Promise.resolve().then(() => typeof require("node:path").join);
`;

interface ChildResult {
  use: string;
  double: number;
  later: number;
  importPath: string;
  filename: string;
}

/**
 * Runs the file in a fresh process (within one process V8 keeps compiled scripts in memory and would take the
 * second run's code from there, whatever the cache file holds); `saveFirst` saves before `later` is first called.
 */
function runInChild(
  file: string,
  dir: string,
  saveFirst = false,
  { wider }: { wider?: boolean } = {},
): ChildResult {
  const widerOptions = wider === undefined ? "" : `, widerPrefix: "test-lib-wider-"`;
  const probe = `
const { runWithCodeCache } = await import("./src/util/v8-code-cache.ts");
const run = runWithCodeCache({ file: ${JSON.stringify(file)}, dir: ${JSON.stringify(dir)}, prefix: "test-lib-", version: "1.0.0"${widerOptions} });
const library = run.exports;
let use = ${saveFirst} ? run.save({ wider: ${wider === true} }) : undefined;
const later = library.later(500);
use ??= run.save({ wider: ${wider === true} });
console.log(JSON.stringify({
  use,
  double: library.double(21),
  later,
  importPath: await library.importPath(),
  filename: library.filename,
}));`;
  return runInFreshProcess<ChildResult>(probe);
}

describe("runWithCodeCache", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "ragsynth-v8-cache-"));
    file = join(dir, "library.cjs");
    await writeFile(file, LIBRARY);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("runs the file as require() would, writes the cache once, then uses it", async () => {
    const cacheDir = join(dir, "cache");
    const expected = { double: 42, later: runLater(500), importPath: "function", filename: file };
    expect(runInChild(file, cacheDir)).toEqual({ use: "written", ...expected });
    const files = await readdir(cacheDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^test-lib-1\.0\.0-\d+-\d+-v\d.*\.v8cache$/);
    const written = await stat(join(cacheDir, files[0] as string));
    expect(runInChild(file, cacheDir)).toEqual({ use: "used", ...expected });
    expect((await stat(join(cacheDir, files[0] as string))).mtimeMs).toBe(written.mtimeMs);
  });

  it("keeps the functions compiled after the file ran when saved late", async () => {
    runInChild(file, join(dir, "early"), true);
    runInChild(file, join(dir, "late"));
    const size = async (folder: string) => {
      const [name] = await readdir(join(dir, folder));
      return (await stat(join(dir, folder, name as string))).size;
    };
    expect(await size("late")).toBeGreaterThan(await size("early"));
  });

  it("never gives a changed file old code, and removes the stale cache file", async () => {
    const cacheDir = join(dir, "cache");
    runInChild(file, cacheDir);
    const [old] = await readdir(cacheDir);
    await appendFile(file, "exports.double = (x) => x * 3;\n");
    const changed = runInChild(file, cacheDir);
    expect(changed.use).toBe("written");
    expect(changed.double).toBe(63);
    const files = await readdir(cacheDir);
    expect(files).toHaveLength(1);
    expect(files).not.toContain(old);
  });

  it("rejects a damaged cache file, runs from source and writes it again", async () => {
    const cacheDir = join(dir, "cache");
    runInChild(file, cacheDir);
    const [name] = await readdir(cacheDir);
    await writeFile(join(cacheDir, name as string), Buffer.from("not V8 code cache data"));
    const damaged = runInChild(file, cacheDir);
    expect(damaged).toMatchObject({ use: "rejected", double: 42 });
    expect(runInChild(file, cacheDir).use).toBe("used");
  });

  it("writes the wider file once, from the first run that says it went further, then reads it", async () => {
    const cacheDir = join(dir, "cache");
    const expected = { double: 42, later: runLater(500), importPath: "function", filename: file };
    // The first run saves before `later` runs: its cache lacks that function.
    expect(runInChild(file, cacheDir, true, { wider: false })).toEqual({ use: "written", ...expected });
    const [plain] = await readdir(cacheDir);
    expect(plain).toMatch(/^test-lib-1\.0\.0-/);
    const plainSize = (await stat(join(cacheDir, plain as string))).size;
    expect(runInChild(file, cacheDir, false, { wider: false })).toEqual({ use: "used", ...expected });
    expect(runInChild(file, cacheDir, false, { wider: true })).toEqual({ use: "written", ...expected });
    const files = await readdir(cacheDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^test-lib-wider-1\.0\.0-\d+-\d+-v\d.*\.v8cache$/);
    const wider = await stat(join(cacheDir, files[0] as string));
    expect(wider.size).toBeGreaterThan(plainSize);
    // Read first from now on, and written no more by either kind of run.
    expect(runInChild(file, cacheDir, false, { wider: true })).toEqual({ use: "used", ...expected });
    expect(runInChild(file, cacheDir, false, { wider: false })).toEqual({ use: "used", ...expected });
    expect(await readdir(cacheDir)).toEqual(files);
    expect((await stat(join(cacheDir, files[0] as string))).mtimeMs).toBe(wider.mtimeMs);
  });

  it("refuses a wider prefix that does not start with the prefix", () => {
    expect(() =>
      runWithCodeCache({ file, dir: join(dir, "cache"), prefix: "test-lib-", widerPrefix: "other-" }),
    ).toThrow("widerPrefix (other-) must start with prefix (test-lib-)");
  });

  it("still runs when the cache folder cannot be made", async () => {
    const blocked = join(dir, "a-file");
    await writeFile(blocked, "");
    const run = runWithCodeCache({ file, dir: join(blocked, "v8"), prefix: "test-lib-" });
    expect((run.exports as { double(x: number): number }).double(4)).toBe(8);
    expect(run.save()).toBe("unwritable");
    expect(run.save()).toBe("unwritable");
  });
});

/** `later` of LIBRARY, computed here, so the child's answer is checked against something it did not say. */
function runLater(n: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const text = String(i).padStart(8, "0");
    total += text.split("").reduce((sum, digit) => sum + Number(digit), 0) % 7;
  }
  return total;
}
