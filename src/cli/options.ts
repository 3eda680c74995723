/** One command-line option: how it parses and how `--help` describes it. */
export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** The value's placeholder in help (`<n>`). */
  value?: string;
  description: string;
  /** May be given more than once. */
  multiple?: boolean;
}

/** Every option of every command, in the order help lists them. */
export const OPTIONS = {
  query: { type: "string", short: "q", value: "<text>", description: "The question (or give it after `--`)" },
  mode: {
    type: "string",
    short: "m",
    value: "<mode>",
    description: "Response mode (see below)",
    multiple: true,
  },
  "top-k": { type: "string", short: "k", value: "<n>", description: "Chunks to retrieve (default 4)" },
  retrieval: {
    type: "string",
    value: "<mode>",
    description:
      "lexical (BM25) | dense (embeddings) | hybrid (both, fused); default lexical offline, hybrid with --embed",
  },
  optimizer: {
    type: "string",
    value: "<spec>",
    description: "Sentence optimizer: percentile=0.5 and/or threshold=0.7 (comma-separated)",
  },
  "similarity-cutoff": {
    type: "string",
    value: "<score>",
    description:
      "Drop retrieved chunks scoring below this: BM25 scores in lexical mode (the offline default; not 0–1), cosine with dense, reciprocal-rank sums with hybrid",
  },
  llm: {
    type: "string",
    value: "<spec>",
    description: "extractive | openai:<model> | ollama:<model> | <baseURL>#<model> (env RAGSYNTH_LLM)",
  },
  embed: {
    type: "string",
    value: "<spec>",
    description: "hashing | openai:<model> | ollama:<model> | <baseURL>#<model> (env RAGSYNTH_EMBED)",
  },
  vision: {
    type: "boolean",
    description:
      "Send the images the sources reference (under the paths given, PNG/JPEG/GIF/WebP, ≤ 20 MB) to the model; without it no local image leaves the machine",
  },
  "context-window": {
    type: "string",
    value: "<n>",
    description: "Model context window in tokens (default: the model's own)",
  },
  "num-output": {
    type: "string",
    value: "<n>",
    description: "Tokens reserved for (and the most in) each answer (default 256)",
  },
  concurrency: {
    type: "string",
    value: "<n|adaptive>",
    description: "Parallel LLM calls in tree/accumulate (default: adaptive, 8 growing to 64, cut on 429/503)",
  },
  stream: { type: "boolean", description: "Stream the answer (default when stdout is a terminal)" },
  "no-stream": { type: "boolean", description: "Print the answer when it is complete" },
  modes: {
    type: "string",
    value: "<mode,…>",
    description: "Response modes to compare (default compact,refine,tree_summarize,simple_summarize)",
    multiple: true,
  },
  count: {
    type: "string",
    short: "n",
    value: "<n>",
    description: "eval generate: questions to write, one per sampled chunk (default 100)",
  },
  judge: {
    type: "string",
    value: "<spec>",
    description:
      "eval: judge each answer with LlamaIndex's faithfulness, relevancy and correctness on this model; ask --citations: judge each citation with its faithfulness prompt",
  },
  "price-in": { type: "string", value: "<usd>", description: "Price of input tokens, USD per million" },
  "price-out": { type: "string", value: "<usd>", description: "Price of output tokens, USD per million" },
  "cache-dir": {
    type: "string",
    value: "<dir>",
    description: "Where the index is kept (default .ragsynth/ next to the documents)",
  },
  store: {
    type: "string",
    value: "<dir|postgres://…>",
    description:
      "Keep the index in this folder (as --cache-dir) or in PostgreSQL (postgres://user:password@host/db?schema=name, shared by many machines; needs npm i pg). Default RAGSYNTH_STORE",
  },
  rebuild: { type: "boolean", description: "Ignore the cached index and build it again" },
  include: {
    type: "string",
    value: "<glob>",
    description: "Read only files matching this glob below the folders given (repeatable; **/*.md, guide/**)",
    multiple: true,
  },
  exclude: {
    type: "string",
    value: "<glob>",
    description: "Pass over files and folders matching this glob (repeatable; drafts/**, *.log)",
    multiple: true,
  },
  "read-as": {
    type: "string",
    value: "<.ext=format>",
    description: "Read files with this ending by a built-in reader (repeatable; .mdx=markdown, .log=text)",
    multiple: true,
  },
  "no-ignore": {
    type: "boolean",
    description:
      "Read what .gitignore/.ragsignore and the default folders (.git, node_modules, dist, build…) leave out",
  },
  hidden: { type: "boolean", description: "Read hidden files and folders (names starting with a dot)" },
  "follow-symlinks": {
    type: "boolean",
    description: "Follow symbolic links that lead outside the paths given (never to /proc, devices or FIFOs)",
  },
  timeout: {
    type: "string",
    value: "<seconds>",
    description: "Most time one model call may take, retries included (default 120)",
  },
  out: {
    type: "string",
    short: "o",
    value: "<file>",
    description: "Results JSONL (resumable: a rerun skips finished ids)",
  },
  index: { type: "string", value: "<dir>", description: "The persisted index folder (from ragsynth index)" },
  redis: {
    type: "string",
    value: "<url>",
    description: "Use the BullMQ backend on this Redis (env RAGSYNTH_REDIS_URL); needs npm i bullmq ioredis",
  },
  queue: { type: "string", value: "<name>", description: "BullMQ queue name (default ragsynth)" },
  "run-id": {
    type: "string",
    value: "<id>",
    description: "Names the run; the same id resumes it (default: from --out)",
  },
  status: { type: "boolean", description: "Show the queue's jobs: waiting, active, done, failed" },
  "requests-per-minute": {
    type: "string",
    value: "<n>",
    description: "Model calls per minute, shared by all workers (--redis)",
  },
  "tokens-per-minute": {
    type: "string",
    value: "<n>",
    description: "Tokens per minute, shared by all workers (--redis)",
  },
  attempts: {
    type: "string",
    value: "<n>",
    description: "Tries per item before it is recorded failed (default 3)",
  },
  "lock-duration": {
    type: "string",
    value: "<ms>",
    description: "How soon a dead worker's jobs go to another worker (default 30000)",
  },
  "allow-llm": {
    type: "string",
    value: "<spec>",
    description:
      "A model spec questions (or jobs) may choose besides --llm; repeatable. Nothing else reaches your API key",
    multiple: true,
  },
  "index-root": {
    type: "string",
    value: "<dir>",
    description: "Open only indexes under this folder; repeatable (default: the current folder)",
    multiple: true,
  },
  "call-cache": {
    type: "string",
    value: "<file>",
    description: "Embedded backend's cache of paid model calls (default <out>.calls.jsonl)",
  },
  json: { type: "boolean", description: "Machine-readable output on stdout, nothing else" },
  trace: {
    type: "boolean",
    description:
      "List the run's steps in the terminal: retrieval, packing, each LLM call, tree levels, tokens (the HTML trace page is --report)",
  },
  citations: {
    type: "boolean",
    description: "Answer with numbered [N] citations, each checked against its source (docs/citations.md)",
  },
  report: {
    type: "string",
    value: "<file.html>",
    description:
      "Write the trace page: one self-contained HTML file of the run (timeline, calls, sources; plan: modes as bars)",
  },
  verbose: {
    type: "boolean",
    short: "v",
    description: "List every skipped file with its reason; stack traces and details on errors",
  },
  help: { type: "boolean", short: "h", description: "Show this help" },
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
    "trace",
    "citations",
    "judge",
    "report",
    ...ALWAYS,
  ],
  plan: [...RETRIEVAL, "price-in", "price-out", ...INDEX, "report", ...ALWAYS],
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
    "report",
    ...ALWAYS,
  ],
} as const satisfies Record<string, readonly OptionName[]>;

export type CommandName = keyof typeof COMMAND_OPTIONS;

/** The `parseArgs` configuration for one command. */
export function parseArgsOptions(
  command: CommandName,
): Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> {
  const out: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const name of COMMAND_OPTIONS[command]) {
    const spec: OptionSpec = OPTIONS[name];
    out[name] = {
      type: spec.type,
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
    };
  }
  return out;
}
