import { join } from "node:path";
import { saveTokenizerCache } from "../tokenizer/bpe-tokenizer.js";
import { useTokenizerCache } from "../tokenizer/cache-dir.js";
import { userCacheDir } from "../util/user-cache-dir.js";

export { indexUpdated } from "./index-updates.js";

import { processIO } from "./io.js";
import { runCli } from "./run-cli.js";
import { EXIT_INTERRUPTED, EXIT_TERMINATED } from "./usage-error.js";

/**
 * The `ragsynth` process: runs the command in `argv` with the process's streams and environment, Ctrl-C and
 * SIGTERM wired to abort it, and returns the exit code (see runCli).
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  // Loading a BPE rank table is a large part of a command's start-up: the token counts of the pieces earlier runs
  // counted are kept in the user's cache folder (a run that meets only those never loads a table), and so is the
  // tables' compiled code, as Node 20 has no module compile cache. NODE_DISABLE_COMPILE_CACHE=1 turns the compiled
  // code off, as it does Node's own compile cache.
  useTokenizerCache(join(userCacheDir(process.env), "v8"), {
    compiledCode: !process.env.NODE_DISABLE_COMPILE_CACHE,
  });

  // Ctrl-C aborts every call in flight; the run then ends with 130. A second Ctrl-C exits at once, and so does
  // the first if the run has not ended 150 ms later (work that does not watch the signal, such as a file write).
  // SIGTERM (systemd, Docker and Kubernetes stopping a process) takes the same path and ends with 143.
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    const exitCode = signal === "SIGTERM" ? EXIT_TERMINATED : EXIT_INTERRUPTED;
    if (controller.signal.aborted) process.exit(exitCode);
    stoppedBy = signal;
    controller.abort(new DOMException(`Stopped by ${signal}`, "AbortError"));
    setTimeout(() => {
      // Erase a progress line that may still be on screen; a pipe or file gets no escape codes.
      if (process.stderr.isTTY) process.stderr.write("\r\u001b[2K");
      process.exit(exitCode);
    }, 150).unref();
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));

  const code = await runCli({ argv, io: processIO(argv), signal: controller.signal });
  saveTokenizerCache();
  return code === EXIT_INTERRUPTED && stoppedBy === "SIGTERM" ? EXIT_TERMINATED : code;
}
