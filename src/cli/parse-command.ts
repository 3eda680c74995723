import { parseArgs } from "node:util";
import { didYouMean } from "../util/did-you-mean.js";
import {
  askOptions,
  batchOptions,
  evalOptions,
  type ParsedCommand,
  planOptions,
  withWalk,
  workerOptions,
} from "./command-options.js";
import type { CliIO } from "./io.js";
import { COMMAND_OPTIONS, type CommandName, OPTIONS } from "./options.js";
import { type ParsedValues, parseArgsOptions, readOptions } from "./read-options.js";
import { UsageError } from "./usage-error.js";

const COMMAND_LIST = Object.keys(COMMAND_OPTIONS).join(", ");

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
  env: CliIO["env"],
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
  const all = [...positionals, ...questionWords];
  if (command === "batch") return { command, options: batchOptions(values, all, env) };
  if (command === "worker") return { command, options: workerOptions(values, all, env) };
  if (command === "eval") return { command, options: evalOptions(values, all, env) };
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
  const question = (flag: string | undefined) => questionFrom(command, flag, questionWords, readStdin);
  if (command === "plan") return { command, options: planOptions(values, positionals, env, question) };
  return { command, options: askOptions(values, positionals, env, question, streamFlag(tokens)) };
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
    if (spec && !("value" in spec))
      return new UsageError(`Option ${option} takes no value.`, `Write ${option} alone.`);
    return new UsageError(
      `Option ${option} needs a value${spec && "value" in spec ? `: ${option} ${spec.value}` : ""}.`,
      `See ragsynth ${command} --help.`,
    );
  }
  return new UsageError(message.split("\n")[0] ?? message, `See ragsynth ${command} --help.`);
}
