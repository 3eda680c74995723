#!/usr/bin/env node
import { processIO } from "./io.js";
import { runCli } from "./run-cli.js";
import { EXIT_INTERRUPTED } from "./usage-error.js";

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

process.exitCode = await runCli({ argv: process.argv.slice(2), io: processIO(), signal: controller.signal });
