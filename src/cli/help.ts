import { RESPONSE_MODES } from "../synthesizer/types.js";
import { COMMAND_OPTIONS, type CommandName, OPTIONS, type OptionSpec } from "./options.js";

const SUMMARIES: Record<CommandName, { usage: string; summary: string; examples: string[] }> = {
  ask: {
    usage: 'ragsynth ask <paths…> --query "<question>"   (or: ragsynth ask <paths…> -- <question>)',
    summary:
      "Answer a question from your files: retrieve, optionally optimize, synthesize, cite the sources.",
    examples: [
      'ragsynth ask examples/docs --query "What is the default response mode?"',
      'ragsynth ask docs/ notes.md --mode tree_summarize --trace -- "Summarize the design"',
      'RAGSYNTH_LLM=ollama:llama3.1 ragsynth ask docs/ -q "…" --optimizer percentile=0.5',
    ],
  },
  plan: {
    usage: 'ragsynth plan <paths…> --query "<question>" [--mode <mode>…]',
    summary:
      "Retrieve, then show how each response mode would pack the context: chunks, LLM calls, prompt tokens, cost. Calls no model.",
    examples: [
      'ragsynth plan examples/docs --query "What is the default response mode?"',
      'ragsynth plan docs/ -q "…" --mode refine,compact --context-window 8192 --price-in 0.15 --price-out 0.6',
    ],
  },
  index: {
    usage: "ragsynth index <paths…>",
    summary:
      "Read, split and embed the files, and keep the index in the cache dir for ask and plan. Any text file is read; " +
      ".gitignore/.ragsignore, hidden names and .git, node_modules, dist, build… are passed over and counted.",
    examples: [
      "ragsynth index examples/docs",
      "ragsynth index docs/ --embed openai:text-embedding-3-small",
      'ragsynth index docs/ --exclude "drafts/**" --read-as .mdx=markdown -v   # -v lists skipped files',
    ],
  },
  batch: {
    usage: "ragsynth batch <questions.jsonl> --index <dir> --out <answers.jsonl> [--redis <url>]",
    summary:
      "Answer a JSONL of {id, query} durably: in-process (resumable from --out), or as BullMQ jobs with --redis. " +
      "The questions file is untrusted: an item's llm must be --llm or an --allow-llm.",
    examples: [
      "ragsynth batch questions.jsonl --index docs/.ragsynth --out answers.jsonl",
      "ragsynth batch questions.jsonl --index docs/.ragsynth --out answers.jsonl --redis redis://127.0.0.1:6379",
      "ragsynth batch --status --redis redis://127.0.0.1:6379",
    ],
  },
  worker: {
    usage: "ragsynth worker --redis <url> [--queue <name>] [--concurrency <n>]",
    summary:
      "Take batch jobs from a Redis queue until stopped (start as many as you like, anywhere). Jobs are untrusted: " +
      "the worker uses its own --llm (or an --allow-llm) and opens indexes under --index-root only.",
    examples: [
      "RAGSYNTH_LLM=openai:gpt-4o-mini ragsynth worker --redis redis://127.0.0.1:6379 --concurrency 8",
    ],
  },
  eval: {
    usage:
      "ragsynth eval <questions.jsonl> <paths…> [--modes <mode,…>] [--judge <spec>]   (or: ragsynth eval generate <paths…> --llm <spec> -n <n>)",
    summary:
      "Measure retrieval and each response mode on labelled questions ({id, query, relevant?, reference?, answer_hint?}): " +
      "quality beside cost per mode, the best quality per dollar marked. Here --concurrency is questions at once (default 4).",
    examples: [
      "ragsynth eval questions.jsonl examples/docs",
      "ragsynth eval questions.jsonl docs/ --llm openai:gpt-4o-mini --modes compact,refine --judge openai:gpt-4o --report eval.html",
      "ragsynth eval questions.jsonl docs/ --redis redis://127.0.0.1:6379   (each question a job for ragsynth worker)",
      "ragsynth eval generate docs/ --llm openai:gpt-4o-mini -n 100 > questions.jsonl",
    ],
  },
};

// Where an option means something else in a command, its help says so (one text per command, not two).
const COMMAND_DESCRIPTIONS: Partial<
  Record<CommandName, Partial<Record<keyof typeof OPTIONS, { value?: string; description: string }>>>
> = {
  batch: {
    concurrency: { value: "<n>", description: "Questions answered at once, embedded backend (default 4)" },
  },
  worker: {
    concurrency: {
      value: "<n>",
      description: "Jobs taken at once, and as many model-call jobs besides (default 4)",
    },
  },
};

function optionLines(topic: CommandName): string[] {
  const rows = COMMAND_OPTIONS[topic].map((name: keyof typeof OPTIONS) => {
    const override = COMMAND_DESCRIPTIONS[topic]?.[name];
    const spec: OptionSpec = { ...OPTIONS[name], ...override };
    const flag = `${spec.short ? `-${spec.short}, ` : "    "}--${name}${spec.value ? ` ${spec.value}` : ""}`;
    return [flag, spec.description] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
}

const ENVIRONMENT = [
  "Environment:",
  "  RAGSYNTH_LLM      Default for --llm (e.g. openai:gpt-4o-mini, ollama:llama3.1)",
  "  RAGSYNTH_EMBED    Default for --embed (e.g. openai:text-embedding-3-small)",
  "  RAGSYNTH_API_KEY  Key for openai:<model> and <baseURL>#<model>; wins over OPENAI_API_KEY (never printed)",
  "  OPENAI_API_KEY    Key for openai:<model> and <baseURL>#<model> when RAGSYNTH_API_KEY is unset (never printed)",
  "  OPENAI_BASE_URL   Base URL for openai:<model> (any OpenAI-compatible server)",
  "  OTEL_EXPORTER_OTLP_ENDPOINT  Send OpenTelemetry spans there over OTLP/HTTP (with the SDK installed; README, Tracing)",
  "",
  "Without --llm/--embed, ragsynth runs offline: an extractive answerer (it quotes the best sentences)",
  "and BM25 retrieval over the words of your files. Nothing is downloaded and no model server is needed.",
];

/** The help of one command, or the overview. */
export function helpText(topic: CommandName | undefined, version: string): string {
  if (topic === undefined) {
    return [
      `ragsynth ${version}: LlamaIndex-style response synthesis from the command line`,
      "",
      "Usage: ragsynth <command> [options]",
      "",
      "Commands:",
      ...Object.entries(SUMMARIES).map(([name, { summary }]) => `  ${name.padEnd(6)} ${summary}`),
      "",
      "Options:",
      "  -h, --help     Show help (also: ragsynth <command> --help)",
      "  -V, --version  Show the version",
      "",
      ...ENVIRONMENT,
      "",
      "Example:",
      `  ${SUMMARIES.ask.examples[0]}`,
      "",
    ].join("\n");
  }
  const { usage, summary, examples } = SUMMARIES[topic];
  const lines = [`Usage: ${usage}`, "", summary, "", "Options:", ...optionLines(topic)];
  if (topic !== "index" && topic !== "worker") {
    lines.push("", `Response modes: ${RESPONSE_MODES.join(", ")} (default compact).`);
  }
  lines.push("", ...ENVIRONMENT, "", "Examples:", ...examples.map((example) => `  ${example}`), "");
  return lines.join("\n");
}
