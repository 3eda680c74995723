import { parseArgs } from "node:util";
import { DEFAULT_EVAL_MODES } from "../eval/evaluate.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import { RESPONSE_MODES, type ResponseMode } from "../synthesizer/types.js";
import { didYouMean } from "../util/did-you-mean.js";
import type { BatchOptions, EvalOptions, ParsedCommand, WorkerOptions } from "./command-options.js";
import type { CliIO } from "./io.js";
import {
  COMMAND_OPTIONS,
  type CommandName,
  type CommandValues,
  OPTIONS,
  type ParsedValues,
  parseArgsOptions,
  readOptions,
} from "./options.js";
import { UsageError } from "./usage-error.js";

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_MODE: ResponseMode = "compact";
/** Adaptive: the model's shared limiter grows while the server keeps up and cuts to what it held on 429/503. */
export const DEFAULT_CONCURRENCY = "adaptive";

const COMMAND_LIST = "ask, plan, index, batch, worker, eval";

/** Turns `process.argv.slice(2)` into a command and its validated options. @throws UsageError */
export function parseCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  { readStdin }: { readStdin?: CliIO["readStdin"] } = {},
): ParsedCommand {
  const [first, ...rest] = argv;
  if (first === undefined || first === "help") {
    const topic = rest[0];
    if (topic !== undefined && !isCommand(topic)) throw unknownCommand(topic);
    return { command: "help", topic: topic as CommandName | undefined };
  }
  if (first === "--help" || first === "-h") return { command: "help", topic: undefined };
  if (first === "--version" || first === "-V") return { command: "version" };
  if (!isCommand(first)) throw unknownCommand(first);
  return parseCommandArgs(first, rest, env, readStdin);
}

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_OPTIONS, name);
}

function unknownCommand(name: string): UsageError {
  if (name.startsWith("-")) {
    return new UsageError(
      `Unknown option ${name} before the command.`,
      `Commands: ${COMMAND_LIST}. Try ragsynth --help.`,
    );
  }
  return new UsageError(
    `Unknown command "${name}".`,
    `${didYouMean(name, Object.keys(COMMAND_OPTIONS))}Commands: ${COMMAND_LIST}. Try ragsynth --help.`,
  );
}

/**
 * `--context-window -5` → `--context-window=-5`: parseArgs reads `-5` as an option, so the user would hear
 * "needs a value" instead of what is wrong with the number.
 */
function attachNegativeValues(args: string[], options: Record<string, { type: string }>): string[] {
  const out: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const next = args[index + 1];
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    if (name && options[name]?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      index++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

function parseCommandArgs(
  command: CommandName,
  args: string[],
  env: Env,
  readStdin: CliIO["readStdin"],
): ParsedCommand {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: attachNegativeValues(args, parseArgsOptions(command)),
      options: parseArgsOptions(command),
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    throw fromParseArgsError(command, error);
  }
  const values = parsed.values as ParsedValues;
  if (values.help === true) return { command: "help", topic: command };
  const tokens = parsed.tokens ?? [];
  // Positionals after `--` are the question; the ones before are paths.
  const terminator =
    tokens.find((token) => token.kind === "option-terminator")?.index ?? Number.POSITIVE_INFINITY;
  const positionals: string[] = [];
  const questionWords: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional")
      (token.index > terminator ? questionWords : positionals).push(token.value);
  }
  if (command === "batch")
    return { command, options: batchOptions(values, [...positionals, ...questionWords], env) };
  if (command === "worker")
    return { command, options: workerOptions(values, [...positionals, ...questionWords], env) };
  if (command === "eval")
    return { command, options: evalOptions(values, [...positionals, ...questionWords], env) };

  if (positionals.length === 0) {
    throw new UsageError(
      `${command} needs at least one file or folder.`,
      `Example: ragsynth ${command} examples/docs${command === "index" ? "" : ' --query "What is the default response mode?"'}`,
    );
  }
  if (command === "index") {
    if (questionWords.length > 0)
      throw new UsageError("index takes no question.", "Use ragsynth ask to ask one.");
    return { command, options: withWalk(readOptions(command, values, env), positionals) };
  }
  if (command === "plan") {
    const { mode: modes, ...read } = withWalk(readOptions(command, values, env), positionals);
    const query = questionFrom(command, read.query, questionWords, readStdin);
    return { command, options: { ...read, query, modes: modes.length > 0 ? modes : [...RESPONSE_MODES] } };
  }
  // `--stream`/`--no-stream`: whichever came last (streamFlag), not each alone.
  const {
    mode: modes,
    concurrency,
    noStream: _,
    ...rest
  } = withWalk(readOptions(command, values, env), positionals);
  const query = questionFrom(command, rest.query, questionWords, readStdin);
  if (rest.judge !== undefined && (rest.judge === "" || !rest.citations)) {
    throw new UsageError(
      rest.judge === "" ? "--judge needs a model spec." : "--judge on ask judges citations: add --citations.",
      'Example: ragsynth ask docs -q "…" --citations --judge openai:gpt-4o-mini',
    );
  }
  if (modes.length > 1) {
    throw new UsageError(
      `ask takes one --mode, got ${modes.length}: ${modes.join(", ")}.`,
      "Use ragsynth plan to compare modes.",
    );
  }
  return {
    command,
    options: {
      ...rest,
      query,
      mode: modes[0] ?? DEFAULT_MODE,
      concurrency: concurrency ?? DEFAULT_CONCURRENCY,
      stream: streamFlag(tokens),
    },
  };
}

/** A command's values with the walk flags gathered as the folder opener takes them, and its paths. */
function withWalk<V extends CommandValues<"index">>(values: V, paths: string[]) {
  const { include, exclude, readAs, noIgnore, hidden, followSymlinks, help: _help, ...rest } = values;
  return { ...rest, paths, walk: { include, exclude, readAs, noIgnore, hidden, followSymlinks } };
}

const BATCH_EXAMPLE = "Example: ragsynth batch questions.jsonl --index docs/.ragsynth --out answers.jsonl";

/** `batch`: one questions file (none with `--status`), `--index` and `--out`. @throws UsageError */
function batchOptions(values: ParsedValues, positionals: string[], env: Env): BatchOptions {
  const { mode: modes, concurrency, help: _help, ...read } = readOptions("batch", values, env);
  if (read.status && !read.redis) {
    throw new UsageError("batch --status reads a BullMQ queue.", "Pass --redis redis://host:6379.");
  }
  if (!read.status && positionals.length !== 1) {
    throw new UsageError(
      `batch takes one questions file, got ${positionals.length === 0 ? "none" : positionals.join(" ")}.`,
      BATCH_EXAMPLE,
    );
  }
  if (read.store && read.redis && !read.status) {
    throw new UsageError(
      "batch --store with --redis: the workers answer the jobs, and a job never names the store.",
      "Start each worker with --store <the URL> instead: batch --store answers in this process only.",
    );
  }
  if (!read.status && ((!read.index && !read.store) || !read.out)) {
    throw new UsageError(
      `batch needs ${!read.index && !read.store ? "--index <dir> (the folder ragsynth index wrote) or --store <postgres://…>" : "--out <answers.jsonl>"}.`,
      BATCH_EXAMPLE,
    );
  }
  if (modes.length > 1) throw new UsageError(`batch takes one --mode, got ${modes.join(", ")}.`);
  return { ...read, input: positionals[0], mode: modes[0] ?? DEFAULT_MODE, concurrency: concurrency ?? 4 };
}

/** `worker`: no files, and a Redis to take jobs from. @throws UsageError */
function workerOptions(values: ParsedValues, positionals: string[], env: Env): WorkerOptions {
  const { redis, concurrency, help: _help, ...read } = readOptions("worker", values, env);
  if (positionals.length > 0) throw new UsageError(`worker takes no files, got ${positionals.join(" ")}.`);
  if (!redis) {
    throw new UsageError(
      "worker needs a Redis to take jobs from.",
      "Pass --redis redis://host:6379 (or set RAGSYNTH_REDIS_URL).",
    );
  }
  return { ...read, redis, concurrency: concurrency ?? 4 };
}

const EVAL_EXAMPLE = "ragsynth eval questions.jsonl examples/docs --modes compact,refine";

/** `eval`: the questions file first, then the documents; or `eval generate` and the documents. @throws UsageError */
function evalOptions(values: ParsedValues, positionals: string[], env: Env): EvalOptions {
  const generate = positionals[0] === "generate";
  const [questions, ...paths] = generate ? ["", ...positionals.slice(1)] : positionals;
  if (generate && paths.length === 0) {
    throw new UsageError(
      "eval generate needs at least one file or folder.",
      "Example: ragsynth eval generate examples/docs --llm openai:gpt-4o-mini -n 20 > questions.jsonl",
    );
  }
  if (!generate && values.count !== undefined) {
    throw new UsageError(
      "--count is for eval generate.",
      "Example: ragsynth eval generate docs/ --llm … -n 100",
    );
  }
  if (questions === undefined || paths.length === 0) {
    throw new UsageError(
      questions === undefined
        ? "eval needs a questions file and at least one file or folder."
        : `eval needs at least one file or folder after the questions file ${questions}.`,
      `Example: ${EVAL_EXAMPLE}`,
    );
  }
  // Only the flag, not RAGSYNTH_REDIS_URL: an eval meant to run here must not wait on a queue nobody works.
  const redisFlag = [values.redis].flat().at(-1) as string | undefined;
  for (const flag of ["out", "call-cache"]) {
    if (redisFlag !== undefined && values[flag] !== undefined) {
      throw new UsageError(
        `--${flag} is for the in-process run; with --redis the queue keeps each question's result and the workers cache the calls in Redis.`,
        "Leave it out: running the same eval --redis command again collects what is finished and runs only what is missing.",
      );
    }
  }
  const { modes, concurrency, ...read } = withWalk(readOptions("eval", values, env), paths);
  if (read.judge === "")
    throw new UsageError("--judge needs a model spec.", "Pass --judge openai:gpt-4o-mini.");
  if (!generate && redisFlag !== undefined && read.store !== undefined && isPostgresUrl(read.store)) {
    throw new UsageError(
      "eval --redis with a PostgreSQL --store: the workers answer the jobs, and a job never names the store.",
      "Start each worker with --store <the URL>, or run the eval in this process (without --redis).",
    );
  }
  return {
    ...read,
    questions,
    query: "",
    vision: false,
    redis: generate ? undefined : redisFlag,
    modes: modes.length > 0 ? modes : [...DEFAULT_EVAL_MODES],
    concurrency: concurrency ?? 4,
    generate,
  };
}

/** `--stream` or `--no-stream`, whichever came last; undefined when neither was given. */
function streamFlag(tokens: ReturnType<typeof parseArgs>["tokens"] & object): boolean | undefined {
  let stream: boolean | undefined;
  for (const token of tokens) {
    if (token.kind === "option" && (token.name === "stream" || token.name === "no-stream")) {
      stream = token.name === "stream";
    }
  }
  return stream;
}

// A question longer than this read from stdin is a mistake (a document piped in by accident), not a question.
const MAX_STDIN_QUESTION_CHARS = 100_000;

function questionFrom(
  command: "ask" | "plan",
  flag: string | undefined,
  words: string[],
  readStdin: CliIO["readStdin"],
): string {
  if (flag !== undefined && words.length > 0) {
    throw new UsageError("Give the question once: either --query or after `--`, not both.");
  }
  // `-q -` reads the question from stdin; with no question at all, a question piped in (`echo … | ragsynth ask docs`).
  const explicit = flag === "-" || (flag === undefined && words.length === 1 && words[0] === "-");
  const piped = explicit || (flag === undefined && words.length === 0) ? readStdin?.(explicit) : undefined;
  if (explicit && piped === undefined) {
    throw new UsageError(`${command} --query - reads the question from stdin, but stdin could not be read.`);
  }
  if (piped !== undefined && piped.length > MAX_STDIN_QUESTION_CHARS) {
    throw new UsageError(
      `Expected a question of at most ${MAX_STDIN_QUESTION_CHARS.toLocaleString("en-US")} characters on stdin, got ${piped.length.toLocaleString("en-US")}.`,
      "Pipe the question only; point ragsynth at the documents as paths.",
    );
  }
  const query = (
    piped !== undefined && (explicit || piped.trim() !== "") ? piped : (flag ?? words.join(" "))
  ).trim();
  if (query === "") {
    throw new UsageError(
      `${command} needs a question.`,
      `Pass --query "…" or put it after \`--\`: ragsynth ${command} examples/docs -- "What is the default response mode?"`,
    );
  }
  return query;
}

function fromParseArgsError(command: CommandName, error: unknown): UsageError {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const valid = COMMAND_OPTIONS[command].map((name) => `--${name}`);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const option = /'(-[^'\s]+)/.exec(message)?.[1] ?? "";
    const bare = option.replace(/^-+/, "").split("=")[0] ?? "";
    return new UsageError(
      `Unknown option ${option} for ${command}.`,
      `${didYouMean(bare, [...COMMAND_OPTIONS[command]]).replace(/mean (\S+)\?/, "mean --$1?")}Valid options: ${valid.join(", ")}.`,
    );
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const option = /--[\w-]+/.exec(message)?.[0] ?? /-\w/.exec(message)?.[0] ?? "";
    const name = option.replace(/^-+/, "") as keyof typeof OPTIONS;
    const spec = Object.hasOwn(OPTIONS, name) ? OPTIONS[name] : undefined;
    if (spec?.type === "boolean")
      return new UsageError(`Option ${option} takes no value.`, `Write ${option} alone.`);
    return new UsageError(
      `Option ${option} needs a value${spec && "value" in spec ? `: ${option} ${spec.value}` : ""}.`,
      `See ragsynth ${command} --help.`,
    );
  }
  return new UsageError(message.split("\n")[0] ?? message, `See ragsynth ${command} --help.`);
}
