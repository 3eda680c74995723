import {
  finiteNumber,
  globs,
  list,
  nonNegativeInteger,
  nonNegativeNumber,
  optimizerSpec,
  positiveInteger,
  readAs,
  reportPath,
  responseModes,
  retrievalMode,
  timeoutMs,
} from "./option-values.js";
import { readStore } from "./store-flag.js";

export type CommandName = "ask" | "plan" | "index" | "batch" | "worker" | "eval";

/**
 * One command-line option: how it parses, how its value is read and checked, and how `--help` describes it. An
 * option is added here once, and to the commands that take it in {@link COMMAND_OPTIONS}: parsing, the checked
 * value in the command's options and the help line all follow from this entry.
 */
export interface OptionSpec {
  short?: string;
  /** The value's placeholder in help (`<n>`): an option with one takes a string, one without is a boolean flag. */
  value?: string;
  description: string;
  /** May be given more than once: `read` gets every value. */
  multiple?: boolean;
  /** Its name in the command's options. @default the flag in camelCase (`top-k` → `topK`) */
  key?: string;
  /** The environment variable read when the flag is not given (a blank one counts as not set). */
  env?: string;
  /**
   * Reads and checks the value: the last one given (undefined when none), or every one of a `multiple` option;
   * `fromEnv` when it came from {@link OptionSpec.env}.
   * @throws UsageError saying what was expected, what arrived and how to fix it. @default the string as given
   */
  read?: (raw: never, flag: string, command: CommandName, fromEnv: boolean) => unknown;
}

/** `--top-k` when it is not given. */
export const DEFAULT_TOP_K = 4;

/** Every option of every command, in the order help lists them. */
export const OPTIONS = {
  query: { short: "q", value: "<text>", description: "The question (or give it after `--`)" },
  mode: {
    short: "m",
    value: "<mode>",
    description: "Response mode (see below)",
    multiple: true,
    read: responseModes,
  },
  "top-k": {
    short: "k",
    value: "<n>",
    description: "Chunks to retrieve (default 4)",
    read: (raw: string | undefined, flag: string) => positiveInteger(raw, flag) ?? DEFAULT_TOP_K,
  },
  retrieval: {
    value: "<mode>",
    description:
      "lexical (BM25) | dense (embeddings) | hybrid (both, fused); default lexical offline, hybrid with --embed",
    read: retrievalMode,
  },
  optimizer: {
    value: "<spec>",
    description: "Sentence optimizer: percentile=0.5 and/or threshold=0.7 (comma-separated)",
    read: optimizerSpec,
  },
  "similarity-cutoff": {
    value: "<score>",
    description:
      "Drop retrieved chunks scoring below this: BM25 scores in lexical mode (the offline default; not 0–1), cosine with dense, reciprocal-rank sums with hybrid",
    read: finiteNumber,
  },
  llm: {
    value: "<spec>",
    description: "extractive | openai:<model> | ollama:<model> | <baseURL>#<model> (env RAGSYNTH_LLM)",
    env: "RAGSYNTH_LLM",
  },
  embed: {
    value: "<spec>",
    description: "hashing | openai:<model> | ollama:<model> | <baseURL>#<model> (env RAGSYNTH_EMBED)",
    env: "RAGSYNTH_EMBED",
  },
  vision: {
    description:
      "Send the images the sources reference (under the paths given, PNG/JPEG/GIF/WebP, ≤ 20 MB) to the model; without it no local image leaves the machine",
  },
  "context-window": {
    value: "<n>",
    description: "Model context window in tokens (default: the model's own)",
    read: positiveInteger,
  },
  "num-output": {
    value: "<n>",
    description: "Tokens reserved for (and the most in) each answer (default 256)",
    read: positiveInteger,
  },
  concurrency: {
    value: "<n|adaptive>",
    description: "Parallel LLM calls in tree/accumulate (default: adaptive, 8 growing to 64, cut on 429/503)",
    // `adaptive`, ask's default, may be named there: it reads as undefined, the default.
    read: (raw: string | undefined, flag: string, command: CommandName) =>
      command === "ask" && raw === "adaptive" ? undefined : positiveInteger(raw, flag),
  },
  stream: { description: "Stream the answer (default when stdout is a terminal)" },
  "no-stream": { description: "Print the answer when it is complete" },
  modes: {
    value: "<mode,…>",
    description: "Response modes to compare (default compact,refine,tree_summarize,simple_summarize)",
    multiple: true,
    read: responseModes,
  },
  count: {
    short: "n",
    value: "<n>",
    description: "eval generate: questions to write, one per sampled chunk (default 100)",
    read: (raw: string | undefined, flag: string) => positiveInteger(raw, flag) ?? 100,
  },
  judge: {
    value: "<spec>",
    description:
      "eval: judge each answer with LlamaIndex's faithfulness, relevancy and correctness on this model; ask --citations: judge each citation with its faithfulness prompt",
    read: (raw: string | undefined) => raw?.trim(),
  },
  "price-in": {
    value: "<usd>",
    description: "Price of input tokens, USD per million",
    read: nonNegativeNumber,
  },
  "price-out": {
    value: "<usd>",
    description: "Price of output tokens, USD per million",
    read: nonNegativeNumber,
  },
  "cache-dir": {
    value: "<dir>",
    description: "Where the index is kept (default .ragsynth/ next to the documents)",
  },
  store: {
    value: "<dir|postgres://…>",
    description:
      "Keep the index in this folder (as --cache-dir) or in PostgreSQL (postgres://user@host/db?schema=name, its password in the URL or PGPASSWORD; shared by many machines; needs npm i pg). Default RAGSYNTH_STORE",
    env: "RAGSYNTH_STORE",
    read: readStore,
  },
  rebuild: { description: "Ignore the cached index and build it again" },
  "no-refresh": {
    description:
      "Answer from the index as it was last built (ragsynth index): no file is listed or read, so changes since are not seen",
  },
  "chunk-size": {
    value: "<n>",
    description: "Tokens per chunk (default 1024); an index built with another size is built again",
    read: positiveInteger,
  },
  "chunk-overlap": {
    value: "<n>",
    description:
      "Tokens shared by neighbouring chunks of a long section (default 200; less than --chunk-size)",
    read: nonNegativeInteger,
  },
  threads: {
    value: "<n>",
    description:
      "Worker threads that parse and split files while indexing (0: none; default one per core but one, up to 4, from 4 cores, and one on 2 or 3 cores from 16 MiB of files; each holds its own tokenizer caches)",
    read: nonNegativeInteger,
  },
  include: {
    value: "<glob>",
    description: "Read only files matching this glob below the folders given (repeatable; **/*.md, guide/**)",
    multiple: true,
    read: globs,
  },
  exclude: {
    value: "<glob>",
    description: "Pass over files and folders matching this glob (repeatable; drafts/**, *.log)",
    multiple: true,
    read: globs,
  },
  "read-as": {
    value: "<.ext=format>",
    description: "Read files with this ending by a built-in reader (repeatable; .mdx=markdown, .log=text)",
    multiple: true,
    read: readAs,
  },
  "no-ignore": {
    description:
      "Read what .gitignore/.ragsignore and the default folders (.git, node_modules, dist, build…) leave out",
  },
  hidden: { description: "Read hidden files and folders (names starting with a dot)" },
  "follow-symlinks": {
    description: "Follow symbolic links that lead outside the paths given (never to /proc, devices or FIFOs)",
  },
  timeout: {
    value: "<seconds>",
    description: "Most time one model call may take, retries included (default 120)",
    key: "timeoutMs",
    read: timeoutMs,
  },
  out: {
    short: "o",
    value: "<file>",
    description: "Results JSONL (resumable: a rerun skips finished ids)",
  },
  index: { value: "<dir>", description: "The persisted index folder (from ragsynth index)" },
  redis: {
    value: "<url>",
    description: "Use the BullMQ backend on this Redis (env RAGSYNTH_REDIS_URL); needs npm i bullmq ioredis",
    env: "RAGSYNTH_REDIS_URL",
  },
  queue: { value: "<name>", description: "BullMQ queue name (default ragsynth)" },
  "run-id": {
    value: "<id>",
    description: "Names the run; the same id resumes it (default: from --out)",
  },
  status: { description: "Show the queue's jobs: waiting, active, done, failed" },
  "requests-per-minute": {
    value: "<n>",
    description: "Model calls per minute, shared by all workers (--redis)",
    read: positiveInteger,
  },
  "tokens-per-minute": {
    value: "<n>",
    description: "Tokens per minute, shared by all workers (--redis)",
    read: positiveInteger,
  },
  attempts: {
    value: "<n>",
    description: "Tries per item before it is recorded failed (default 3)",
    read: (raw: string | undefined, flag: string) => positiveInteger(raw, flag) ?? 3,
  },
  "lock-duration": {
    value: "<ms>",
    description: "How soon a dead worker's jobs go to another worker (default 30000)",
    key: "lockDurationMs",
    read: positiveInteger,
  },
  "allow-llm": {
    value: "<spec>",
    description:
      "A model spec questions (or jobs) may choose besides --llm; repeatable. Nothing else reaches your API key",
    multiple: true,
    key: "allowLLM",
    read: list,
  },
  "index-root": {
    value: "<dir>",
    description: "Open only indexes under this folder; repeatable (default: the current folder)",
    multiple: true,
    key: "indexRoots",
    read: list,
  },
  "call-cache": {
    value: "<file>",
    description: "Embedded backend's cache of paid model calls (default <out>.calls.jsonl)",
  },
  json: { description: "Machine-readable output on stdout, nothing else" },
  trace: {
    description:
      "List the run's steps in the terminal: retrieval, packing, each LLM call, tree levels, tokens (the HTML trace page is --report)",
  },
  citations: {
    description: "Answer with numbered [N] citations, each checked against its source (docs/citations.md)",
  },
  report: {
    value: "<file.html>",
    description:
      "Write the trace page: one self-contained HTML file of the run (timeline, calls, sources; plan: modes as bars)",
    read: (raw: string | undefined, _flag: string, command: CommandName) =>
      reportPath(raw, command === "eval" ? "eval.html" : "trace.html"),
  },
  verbose: {
    short: "v",
    description: "List every skipped file with its reason; stack traces and details on errors",
  },
  help: { short: "h", description: "Show this help" },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;
type Names = readonly OptionName[];

// Retrieval and the budget work the same in `ask` and `plan`, so the two commands share these.
// `eval` reads the same retrieval and models, so it shares SEARCH and WINDOW (without a query or --vision).
// Checked as option names where COMMAND_OPTIONS uses them.
const SEARCH = ["top-k", "retrieval", "optimizer", "similarity-cutoff", "llm", "embed"] as const;
const WINDOW = ["context-window", "num-output"] as const satisfies Names;
const RETRIEVAL = ["query", "mode", ...SEARCH, "vision", ...WINDOW] as const satisfies Names;
const INDEX = [
  "cache-dir",
  "store",
  "rebuild",
  "chunk-size",
  "chunk-overlap",
  "threads",
  "include",
  "exclude",
  "read-as",
  "no-ignore",
  "hidden",
  "follow-symlinks",
  "timeout",
  "json",
] as const satisfies readonly OptionName[];
const ALWAYS = ["verbose", "help"] as const satisfies readonly OptionName[];

/** The options each command accepts. */
export const COMMAND_OPTIONS = {
  ask: [
    ...RETRIEVAL,
    "concurrency",
    "stream",
    "no-stream",
    ...INDEX,
    "no-refresh",
    "trace",
    "citations",
    "judge",
    "report",
    ...ALWAYS,
  ],
  plan: [...RETRIEVAL, "price-in", "price-out", ...INDEX, "no-refresh", "report", ...ALWAYS],
  index: ["embed", ...INDEX, ...ALWAYS],
  batch: [
    "index",
    "store",
    "out",
    "redis",
    "queue",
    "run-id",
    "status",
    "mode",
    "top-k",
    "llm",
    "embed",
    "context-window",
    "num-output",
    "concurrency",
    "requests-per-minute",
    "tokens-per-minute",
    "attempts",
    "allow-llm",
    "call-cache",
    "price-in",
    "price-out",
    "citations",
    "json",
    ...ALWAYS,
  ],
  worker: [
    "redis",
    "queue",
    "llm",
    "embed",
    "allow-llm",
    "index-root",
    "store",
    "concurrency",
    "lock-duration",
    ...ALWAYS,
  ],
  eval: [
    "modes",
    ...SEARCH,
    ...WINDOW,
    "judge",
    "price-in",
    "price-out",
    "call-cache",
    "out",
    "concurrency",
    "redis",
    "queue",
    "citations",
    "count",
    ...INDEX,
    "no-refresh",
    "report",
    ...ALWAYS,
  ],
} as const satisfies Record<CommandName, readonly OptionName[]>;
