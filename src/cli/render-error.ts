import { causeChain, systemErrorMessage, withHint } from "../errors/describe-error.js";
import { RagsynthError, type RagsynthErrorCode } from "../errors/ragsynth-error.js";
import { isAbortError } from "../util/abort.js";
import { cliReason } from "./read-report.js";
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE, UsageError } from "./usage-error.js";

/**
 * What the CLI adds to a library error: the flag or variable that fixes it. A hint is left out when the
 * message already says the same (`unless`).
 */
const HINTS: Partial<Record<RagsynthErrorCode, string | { hint: string; unless: RegExp }>> = {
  missing_api_key:
    "Or use --llm ollama:<model> for a local server, or --llm extractive --embed hashing to run offline.",
  llm_auth: {
    hint: "Check OPENAI_API_KEY (and OPENAI_BASE_URL if you use another server).",
    unless: /OPENAI_API_KEY|RAGSYNTH_API_KEY/,
  },
  llm_unreachable:
    "Check that the server is running and that --llm points at it (OPENAI_BASE_URL for openai:<model>), or run offline with --llm extractive --embed hashing.",
  llm_rate_limit: "Wait and retry, or lower --concurrency.",
  llm_bad_response: {
    hint: "Point --llm (or OPENAI_BASE_URL) at the server's OpenAI-compatible /v1 endpoint.",
    unless: /\/v1 endpoint/,
  },
  llm_timeout: "Raise --timeout (seconds per model call), lower --concurrency, or use a faster model.",
  llm_context_length:
    "The server's window is smaller than ragsynth assumed: pass the real one with --context-window.",
  context_overflow: "Raise --context-window or lower --num-output.",
  tree_not_shrinking: "Raise --context-window or lower --num-output so summaries fit.",
  optimizer_zero_sentences: "Lower the --optimizer threshold, or use percentile=… instead.",
  document_read: { hint: "Check that the path exists and is readable.", unless: /Check|Point ragsynth/ },
  index_load: {
    hint: "Run again with --rebuild to rebuild the cached index.",
    unless: /PostgreSQL|Build it first/,
  },
  index_save: { hint: "Pass --cache-dir with a folder you can write to.", unless: /PostgreSQL/ },
  unknown_mode: "Run ragsynth ask --help to see the modes.",
};

// What the folder opener's "No documents to read" (index-store/folder-index.ts) means on the command line.
const NO_DOCUMENTS_HINT = "-v lists what was skipped; --no-ignore and --hidden read more.";

/**
 * The exit code and the text for an error: one line (`ragsynth: <what happened>. <how to fix it>`),
 * and with `verbose` the stack and cause chain after it.
 */
export function renderError(
  error: unknown,
  { verbose, env = {} }: { verbose: boolean; env?: Readonly<Record<string, string | undefined>> },
): { text: string; exitCode: number } {
  if (isAbortError(error)) return { text: "ragsynth: interrupted.\n", exitCode: EXIT_INTERRUPTED };
  let line: string;
  let exitCode = EXIT_FAILURE;
  if (error instanceof UsageError) {
    line = withHint(error.message, error.hint);
    exitCode = EXIT_USAGE;
  } else if (RagsynthError.isInstance(error)) {
    // The key came from RAGSYNTH_API_KEY when it is set (it wins over OPENAI_API_KEY): name that one.
    const entry =
      error.code === "llm_auth" && env.RAGSYNTH_API_KEY
        ? { hint: "Check RAGSYNTH_API_KEY (it wins over OPENAI_API_KEY).", unless: /RAGSYNTH_API_KEY/ }
        : HINTS[error.code];
    const hint =
      typeof entry === "string" || entry === undefined
        ? entry
        : entry.unless.test(error.message)
          ? undefined
          : entry.hint;
    // The library names its option; the CLI user knows the flag.
    const message =
      error.code === "llm_timeout"
        ? error.message.replace(
            /within timeoutMs (\d+)\. Raise timeoutMs, /,
            (_, ms) => `within --timeout ${Number(ms) / 1000} s. `,
          )
        : cliReason(error.message);
    line = withHint(message, /^No documents to read/.test(message) ? NO_DOCUMENTS_HINT : hint);
  } else if (systemErrorMessage(error)) {
    line = systemErrorMessage(error) as string;
  } else {
    const message = error instanceof Error ? error.message : String(error);
    line = withHint(
      `Unexpected error: ${message}`,
      verbose ? undefined : "Run again with --verbose for the stack trace.",
    );
  }
  const text = `ragsynth: ${line}\n`;
  if (!verbose || error instanceof UsageError) return { text, exitCode };
  return { text: `${text}${causeChain(error).join("\n")}\n`, exitCode };
}
