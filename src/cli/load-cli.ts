import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { userCacheDir } from "../util/user-cache-dir.js";
import { runWithCodeCache } from "../util/v8-code-cache.js";

/** What the bin runs: src/cli/main.ts, built into dist/cli/cli.cjs. */
export interface CliModule {
  main(argv?: readonly string[]): Promise<number>;
  /** Whether the command updated an index (src/cli/index-updates.ts). */
  indexUpdated?(): boolean;
}

// Commands whose code differs enough to keep a compiled-code file each; anything else shares one.
const COMMANDS = new Set(["ask", "plan", "index", "batch", "worker"]);

/**
 * Loads the CLI for `argv`. Built, it is one CommonJS bundle (dist/cli/cli.cjs) run with V8's compiled code from
 * the user's cache folder (`$XDG_CACHE_HOME/ragsynth/v8`, one file per command): Node 20 compiles every module
 * from source on every start, and compiling the CLI's ~0.5 MB was a large part of an offline `ask`. Call `save`
 * when the command has run, so the file keeps every function the command compiled (written on the first run of
 * each command, again whenever V8 rejects it, and once more, wider, by the first run that updated the index: see
 * `widerPrefix`). NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's
 * own compile cache, and so does `--enable-source-maps`. From the sources (tests, tsx), the modules themselves load.
 */
export async function loadCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ cli: CliModule; save: (options?: { wider?: boolean }) => void }> {
  const bundle = fileURLToPath(new URL("./cli.cjs", import.meta.url));
  if (!existsSync(bundle)) {
    // A specifier in a variable, so bundling the bin does not pull the CLI's modules into it.
    const sources = "./main.js";
    return { cli: (await import(sources)) as CliModule, save: () => {} };
  }
  // With source maps on (--enable-source-maps), require() it: Node maps the stack traces of what its loaders
  // loaded, not of a node:vm script, and whoever turns source maps on wants src/ lines more than start-up time.
  if (env.NODE_DISABLE_COMPILE_CACHE || process.sourceMapsEnabled) {
    return { cli: createRequire(import.meta.url)(bundle) as CliModule, save: () => {} };
  }
  const command = argv[0] !== undefined && COMMANDS.has(argv[0]) ? argv[0] : "other";
  const run = runWithCodeCache({
    file: bundle,
    dir: join(userCacheDir(env), "v8"),
    prefix: `ragsynth-cli-${command}-`,
    // An ask that found files changed ran the reading, splitting and index writes an unchanged one did not: its
    // save writes the wider file once, so later asks do not compile that code again (~20 ms of an edited ask).
    widerPrefix: `ragsynth-cli-${command}-indexed-`,
  });
  return { cli: run.exports as CliModule, save: (options) => void run.save(options) };
}
