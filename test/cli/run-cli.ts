import { type ChildProcess, spawn } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root. */
export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The example corpus. */
export const EXAMPLE_DOCS = join(ROOT, "examples", "docs");
const BIN = join(ROOT, "src", "cli", "bin.ts");
// tsx's loader by path, so a child started in another folder (cwd) still finds it.
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;

/** A recognisable fake key: if it shows up in any output, a test fails. */
export const TEST_API_KEY = "sk-ragsynth-TEST-9f8e7d6c5b4a39281706";

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

// The CLI keeps compiled rank tables in the user's cache folder ($XDG_CACHE_HOME/ragsynth/v8): the children of
// the tests share one in the temporary folder, not the developer's. It is kept between runs (a few MB, rewritten
// whole when stale); a child that cannot write it compiles the tables from source.
const TEST_CACHE_HOME = join(tmpdir(), "ragsynth-test-cache");

/** The child's environment: the parent's, minus anything that would configure a model. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(base)) {
    if (/^(RAGSYNTH_|OPENAI_|OLLAMA_)/.test(name) || name === "FORCE_COLOR") delete base[name];
  }
  base.NO_COLOR = "1";
  base.XDG_CACHE_HOME = TEST_CACHE_HOME;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  return base;
}

/** Starts `ragsynth <args>` as a child process (TypeScript through tsx's loader: no build step needed). */
export function startCli(
  args: string[],
  {
    env = {},
    cwd = ROOT,
    uid,
    gid,
    stdin,
  }: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    uid?: number;
    gid?: number;
    stdin?: string;
  } = {},
): { child: ChildProcess; done: Promise<CliResult>; output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, BIN, ...args], {
    cwd,
    env: childEnv(env),
    stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    ...(uid === undefined ? {} : { uid }),
    ...(gid === undefined ? {} : { gid }),
  });
  if (stdin !== undefined) child.stdin?.end(stdin);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
  return { child, done, output: () => ({ stdout, stderr }) };
}

/** Runs `ragsynth <args>` to completion. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; stdin?: string } = {},
): Promise<CliResult> {
  return startCli(args, options).done;
}

/** A temporary copy of the example corpus (so caches land outside the repository). */
export async function copyExampleDocs(): Promise<{
  dir: string;
  docs: string;
  cleanup: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "ragsynth-cli-"));
  const docs = join(dir, "docs");
  // The documents only: an index cache that `npm run demo` or a user's `ask` left in examples/docs stays behind.
  await cp(EXAMPLE_DOCS, docs, { recursive: true, filter: (source) => basename(source) !== ".ragsynth" });
  return { dir, docs, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Resolves when `predicate` holds for the child's output so far. */
export async function waitForOutput(
  output: () => { stdout: string; stderr: string },
  predicate: (output: { stdout: string; stderr: string }) => boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const start = Date.now();
  while (!predicate(output())) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`timed out waiting for output: ${JSON.stringify(output())}`);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
  }
}
