import type { RetrievalMode } from "../query-engine/retriever.js";
import type { OptimizerSpec } from "./option-values.js";
import type { WalkFlags } from "./walk-flags.js";

// The options the retrieving commands share, apart from their parsers (parse-command.ts and parse-eval-command.ts
// both build them; neither imports the other for them).

/** Options every command shares. */
export interface CommonOptions {
  paths: string[];
  /** `--include`, `--exclude`, `--no-ignore`, `--hidden`, `--follow-symlinks`: how folders are walked. */
  walk: WalkFlags;
  cacheDir: string | undefined;
  /** `--store`, else `RAGSYNTH_STORE`: a folder (as `--cache-dir`) or a PostgreSQL URL the index is kept in. */
  store: string | undefined;
  /** `--embed`, else `RAGSYNTH_EMBED`; undefined means the offline default. */
  embed: string | undefined;
  rebuild: boolean;
  /** `--timeout` in milliseconds: the deadline of each model call. */
  timeoutMs: number;
  json: boolean;
  verbose: boolean;
}

/** Options of the commands that retrieve for a query (ask, plan, eval); not the library's `QueryOptions` of `engine.query`. */
export interface QueryCommandOptions extends CommonOptions {
  query: string;
  topK: number;
  /** `--retrieval`; undefined means lexical offline, hybrid with an embedding model. */
  retrieval: RetrievalMode | undefined;
  optimizer: OptimizerSpec | undefined;
  similarityCutoff: number | undefined;
  /** `--llm`, else `RAGSYNTH_LLM`; undefined means the offline default. */
  llm: string | undefined;
  /** `--vision`: the model takes images, and the checked images the sources reference are sent to it as image parts. */
  vision: boolean;
  contextWindow: number | undefined;
  numOutput: number | undefined;
  /** `--report <file.html>`: where to write the trace page (the run as one HTML file; not OpenTelemetry spans). */
  report: string | undefined;
}
