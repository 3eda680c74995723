import { readFileSync } from "node:fs";
import { createAbortError } from "../util/abort.js";
import { helpText } from "./help.js";
import type { CommandContext } from "./io.js";
import { parseCommand } from "./parse-command.js";
import { renderError } from "./render-error.js";
import { EXIT_OK } from "./usage-error.js";

/** The package version, read from package.json (two folders up from both src/cli and dist/cli). */
export function packageVersion(): string {
  try {
    const json = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return json.version ?? "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * Runs one `ragsynth` invocation and returns its exit code: 0 done, 1 failed, 2 bad command line,
 * 130 interrupted. Errors are written to stderr as one line (with `--verbose`, the stack too); with
 * `--json`, stdout also gets `{ "error": … }`.
 */
export async function runCli({
  argv,
  io,
  signal,
}: { argv: readonly string[] } & CommandContext): Promise<number> {
  const verbose = argv.includes("--verbose") || argv.includes("-v");
  const json = argv.includes("--json");
  try {
    const parsed = parseCommand(argv, io.env, { readStdin: io.readStdin });
    switch (parsed.command) {
      case "help":
        io.stdout.write(helpText(parsed.topic, packageVersion()));
        return EXIT_OK;
      case "version":
        io.stdout.write(`${packageVersion()}\n`);
        return EXIT_OK;
      // Commands load on demand, so --help, --version and usage errors start fast.
      case "ask":
        return await (await import("./commands.js")).runAsk(parsed.options, { io, signal });
      case "plan":
        return await (await import("./commands.js")).runPlan(parsed.options, { io, signal });
      case "index":
        return await (await import("./commands.js")).runIndex(parsed.options, { io, signal });
      case "batch":
        return await (await import("./commands.js")).runBatch(parsed.options, { io, signal });
      case "worker":
        return await (await import("./commands.js")).runWorker(parsed.options, { io, signal });
      case "eval":
        return await (await import("./commands.js")).runEval(parsed.options, { io, signal });
    }
  } catch (caught) {
    const error = signal.aborted ? createAbortError(signal) : caught;
    const { text, exitCode } = renderError(error, { verbose, env: io.env });
    io.stderr.write(text);
    if (json) {
      const code = (error as { code?: unknown }).code;
      const message = text.split("\n")[0]?.replace(/^ragsynth: /, "");
      io.stdout.write(
        `${JSON.stringify({ error: { ...(typeof code === "string" ? { code } : {}), message, exitCode } })}\n`,
      );
    }
    return exitCode;
  }
}
