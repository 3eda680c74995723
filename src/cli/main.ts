import { join } from "node:path";
import { useRankTableCodeCache } from "../tokenizer/code-cache-dir.js";
import { processIO } from "./io.js";
import { runCli } from "./run-cli.js";
import { EXIT_INTERRUPTED } from "./usage-error.js";
import { userCacheDir } from "./user-cache-dir.js";

/**
 * The `ragsynth` process: runs the command in `argv` with the process's streams and environment, Ctrl-C and
 * SIGTERM wired to abort it, and returns the exit code (see runCli).
 */
export function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  // Compiling a BPE rank table is a large part of a command's start-up, and Node 20 has no module compile cache:
  // the tables' compiled code is kept in the user's cache folder instead. NODE_DISABLE_COMPILE_CACHE=1 turns it
  // off, as it does Node's own compile cache.
  if (!process.env.NODE_DISABLE_COMPILE_CACHE) useRankTableCodeCache(join(userCacheDir(process.env), "v8"));

  // Ctrl-C aborts every call in flight; the run then ends with 130. A second Ctrl-C exits at once, and so does
  // the first if the run has not ended 150 ms later (work that does not watch the signal, such as a file write).
  const controller = new AbortController();
  process.on("SIGINT", () => {
    if (controller.signal.aborted) process.exit(EXIT_INTERRUPTED);
    controller.abort();
    setTimeout(() => {
      process.stderr.write("\r\u001b[2K");
      process.exit(EXIT_INTERRUPTED);
    }, 150).unref();
  });
  // SIGTERM (a process manager stopping a worker) ends the run the same way.
  process.on("SIGTERM", () => controller.abort());

  return runCli({ argv, io: processIO(), signal: controller.signal });
}
