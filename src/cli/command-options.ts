import type { FolderWalk } from "../index-store/folder-index.js";
import type { ResponseMode } from "../synthesizer/types.js";
import type { CommandName, CommandValues } from "./options.js";

// The options each command runs with, as parse-command.ts hands them over (read and checked from the option table).

export type { OptimizerSpec } from "./option-values.js";

type WalkKey = keyof FolderWalk;

/** The options of every command over documents: the paths, how they are walked and indexed. */
export type CommonOptions = Omit<CommandValues<"index">, WalkKey | "help"> & {
  paths: string[];
  walk: FolderWalk;
};
export type IndexOptions = CommonOptions;

/** Options of the commands that retrieve for a query (ask, plan, eval); not the library's `QueryOptions` of `engine.query`. */
export type QueryCommandOptions = CommonOptions &
  Pick<
    CommandValues<"plan">,
    | "topK"
    | "retrieval"
    | "optimizer"
    | "similarityCutoff"
    | "llm"
    | "vision"
    | "contextWindow"
    | "numOutput"
    | "report"
  > & { query: string };

export type AskOptions = QueryCommandOptions &
  Pick<CommandValues<"ask">, "trace" | "citations" | "judge"> & {
    mode: ResponseMode;
    concurrency: number | "adaptive";
    /** `--stream`/`--no-stream`, whichever came last; undefined means "when stdout is a terminal". */
    stream: boolean | undefined;
  };

export type PlanOptions = QueryCommandOptions &
  Pick<CommandValues<"plan">, "priceIn" | "priceOut"> & {
    /** The modes to plan; every mode when none was given. */
    modes: ResponseMode[];
  };

export type BatchOptions = Omit<CommandValues<"batch">, "mode" | "concurrency" | "help"> & {
  /** The questions JSONL; undefined with `--status`. */
  input: string | undefined;
  mode: ResponseMode;
  concurrency: number;
};

export type WorkerOptions = Omit<CommandValues<"worker">, "redis" | "concurrency" | "help"> & {
  redis: string;
  concurrency: number;
};

/** Options of `ragsynth eval`: retrieval and budget as `ask` takes them, plus the questions and what to compare. */
export type EvalOptions = QueryCommandOptions &
  Pick<
    CommandValues<"eval">,
    "modes" | "judge" | "priceIn" | "priceOut" | "callCache" | "out" | "citations" | "queue" | "count"
  > & {
    /** The questions JSONL. */
    questions: string;
    /** `--redis` (the flag only): each question a BullMQ job for `ragsynth worker`s; undefined: in-process. */
    redis: string | undefined;
    /** Questions in flight at once. */
    concurrency: number;
    /** `eval generate`: write a questions file from the documents instead of evaluating. */
    generate: boolean;
  };

export type ParsedCommand =
  | { command: "batch"; options: BatchOptions }
  | { command: "worker"; options: WorkerOptions }
  | { command: "eval"; options: EvalOptions }
  | { command: "ask"; options: AskOptions }
  | { command: "plan"; options: PlanOptions }
  | { command: "index"; options: IndexOptions }
  | { command: "help"; topic: CommandName | undefined }
  | { command: "version" };
