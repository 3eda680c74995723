import { fstatSync, readFileSync } from "node:fs";
import { hideUrlPasswords, redactKnownSecrets, urlCredentials } from "../errors/scrub-secrets.js";
import { ownControl, terminalSink } from "./terminal-text.js";
/** Something text can be written to: a stream, or a buffer in tests. */
export interface TextSink {
  write(text: string): void;
}

/** Everything a command reads from and writes to its process, injected so that it can run in tests. */
export interface CliIO {
  /** The result: the answer, sources, summary, tables, or JSON with `--json`. */
  stdout: TextSink;
  /** Progress, notices, warnings and errors. */
  stderr: TextSink;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables and the progress bar. */
  columns: number;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /**
   * Standard input as text, for a question given as `-q -` or piped in. `explicit` (`-q -`) reads whatever stdin
   * is, a terminal included (until Ctrl-D); otherwise only a pipe or a redirected file is read, never a terminal or
   * a socket a parent left open. Undefined when there is nothing to read that way.
   */
  readStdin?: ((explicit: boolean) => string | undefined) | undefined;
  /**
   * The redaction every byte written to stdout and stderr goes through, for what the CLI writes to files (the trace,
   * plan and eval pages): the keys and passwords it knows are replaced by `[REDACTED]`. @default no redaction
   */
  redact?: ((text: string) => string) | undefined;
}

/**
 * Replaces every occurrence of the given secrets with `[REDACTED]` (the library's rule: `redactKnownSecrets`).
 * Every byte the CLI writes goes through one of these, so an API key echoed by a server, an error cause or a
 * trace never reaches the terminal. Secrets shorter than 8 characters are ignored: they would redact ordinary
 * words. The password of a URL (`redis://user:password@host`) is hidden whatever its length. Answers that
 * quote `Bearer …` or `sk-…` on purpose are left alone.
 */
export function createRedactor(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  return (text) => hideUrlPasswords(redactKnownSecrets(text, secrets));
}

/** The environment variables whose values are credentials. */
export const SECRET_ENV_VARS = ["OPENAI_API_KEY", "RAGSYNTH_API_KEY"] as const;

/**
 * Every secret the CLI must never print: the API keys in the environment and the passwords of the Redis and
 * PostgreSQL URLs it was given (`RAGSYNTH_REDIS_URL`, `RAGSYNTH_STORE`, `--redis` and `--store` in `argv`).
 */
export function cliSecrets(
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[] = [],
): string[] {
  const redisUrls = [env.RAGSYNTH_REDIS_URL, env.RAGSYNTH_STORE];
  for (const [index, arg] of argv.entries()) {
    for (const flag of ["--redis", "--store"]) {
      if (arg === flag) redisUrls.push(argv[index + 1]);
      else if (arg.startsWith(`${flag}=`)) redisUrls.push(arg.slice(flag.length + 1));
    }
  }
  return [
    ...SECRET_ENV_VARS.map((name) => env[name]).filter((value): value is string => value !== undefined),
    ...redisUrls.flatMap((url) => urlCredentials(url)),
  ];
}

/** Wraps a sink so everything written to it is redacted first. */
export function redactingSink(sink: TextSink, redact: (text: string) => string): TextSink {
  return { write: (text) => sink.write(redact(text)) };
}

/**
 * The real process, with every output redacted of the credentials found in the environment, then made safe for a
 * terminal (`terminal-text.ts`: a control character from a file name, a document or a reply is shown as `\u001b`,
 * not obeyed). A closed pipe (`ragsynth ask … | head -3`) ends the process quietly instead of crashing with EPIPE.
 */
export function processIO(argv: readonly string[] = []): CliIO {
  const env = process.env;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(0);
      throw error;
    });
  }
  const redact = createRedactor(cliSecrets(env, argv));
  const sink = (stream: NodeJS.WriteStream): TextSink =>
    redactingSink(terminalSink({ write: (text) => stream.write(text) }), redact);
  return {
    stdout: sink(process.stdout),
    stderr: sink(process.stderr),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    columns: process.stderr.columns || process.stdout.columns || 80,
    env,
    cwd: process.cwd(),
    redact,
    readStdin: (explicit) => {
      try {
        const stats = fstatSync(0);
        if (!explicit && !stats.isFIFO() && !stats.isFile()) return undefined;
        return readFileSync(0, "utf8");
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * ANSI styling, or identity functions when the sink is not a terminal or `NO_COLOR` is set. The codes are the CLI's
 * own (`ownControl`), so a terminal sink lets them through.
 */
export type Style = ReturnType<typeof createStyle>;

export function createStyle(enabled: boolean) {
  const wrap = (open: number, close: number) => {
    const before = ownControl(`\u001b[${open}m`);
    const after = ownControl(`\u001b[${close}m`);
    return (text: string) => (enabled ? `${before}${text}${after}` : text);
  };
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/** Whether to colour output going to a sink: a terminal, and neither `NO_COLOR` nor `TERM=dumb`. */
export function colorEnabled(isTTY: boolean, env: CliIO["env"]): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return isTTY && env.NO_COLOR === undefined && env.TERM !== "dumb";
}

/** Writes a command's one JSON document (`--json`) to stdout, indented. */
export function writeJSON(io: Pick<CliIO, "stdout">, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** What every command receives besides its options. */
export interface CommandContext {
  io: CliIO;
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
}
