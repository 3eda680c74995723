import { resolve } from "node:path";
import { withCallCache } from "../batch/call-cache.js";
import { CACHE_HMAC_KEY_ENV } from "../batch/call-cache-seal.js";
import { generateQuestions } from "../eval/generate-questions.js";
import { folderIndexSaved } from "../index-store/folder-index.js";
import { openCallCacheFile } from "../question-run/open-call-cache.js";
import { plural } from "../util/format-numbers.js";
import type { EvalOptions } from "./command-options.js";
import type { CommandContext } from "./io.js";
import { chooseModels, openRetrieval } from "./pipeline.js";
import { createProgress } from "./progress.js";
import { EXIT_OK, UsageError } from "./usage-error.js";

/**
 * `ragsynth eval generate <paths…> --llm … -n 100`: a questions JSONL on stdout, one question per sampled chunk
 * (LlamaIndex's question-generation prompt), the chunk's id as `relevant`, the model's answer as `reference`.
 */
export async function runEvalGenerate(options: EvalOptions, context: CommandContext): Promise<number> {
  const { io, signal } = context;
  const progress = createProgress({ enabled: io.stderrIsTTY, sink: io.stderr, columns: io.columns });
  try {
    const models = chooseModels(options, io, {});
    if (models.llmChoice.label === "extractive") {
      throw new UsageError(
        "eval generate needs a model that writes: the offline answerer only quotes the documents.",
        "Pass --llm openai:gpt-4o-mini (or set RAGSYNTH_LLM).",
      );
    }
    const llm = options.callCache
      ? withCallCache({
          llm: models.llm,
          store: await openCallCacheFile(
            resolve(io.cwd, options.callCache),
            io.env[CACHE_HMAC_KEY_ENV],
            (text) => io.stderr.write(text),
          ),
          baseURL: models.llmChoice.baseURL,
        })
      : models.llm;
    const { opened, promptHelper } = await openRetrieval(options, models, context, progress);
    // Every chunk, read once (a PostgreSQL store has no synchronous read).
    const nodes = await opened.index.readNodes();
    progress.start(`Writing ${plural(options.count, "question")}`, options.count);
    const { questions, skipped } = await generateQuestions({
      nodes,
      llm,
      count: options.count,
      promptHelper,
      onQuestion: (_, done) => progress.update(done),
      signal,
    });
    progress.clear();
    await folderIndexSaved(opened, progress);
    for (const question of questions) io.stdout.write(`${JSON.stringify(question)}\n`);
    if (questions.length < options.count) {
      io.stderr.write(
        `ragsynth: wrote ${plural(questions.length, "question")} of ${options.count}: ` +
          `${plural(nodes.length, "chunk")} to sample from${skipped.length > 0 ? `, ${skipped.length} replies held no question (${skipped.slice(0, 5).join(", ")}${skipped.length > 5 ? ", …" : ""})` : ""}.\n`,
      );
    }
    return EXIT_OK;
  } finally {
    progress.clear();
  }
}
