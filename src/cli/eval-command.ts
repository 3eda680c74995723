import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type CallCacheStore, countCachedCalls, withCallCache } from "../batch/call-cache.js";
import { CACHE_HMAC_KEY_ENV } from "../batch/call-cache-seal.js";
import { parseEvalQuestions } from "../eval/eval-questions.js";
import { resolvePrices } from "../eval/prices.js";
import { renderEvalPage } from "../eval/render-eval-page.js";
import { renderEvalTable } from "../eval/render-eval-table.js";
import { folderIndexSaved, type OpenedFolderIndex } from "../index-store/folder-index.js";
import type { LLM } from "../llm/types.js";
import { evalRunConfig } from "../question-run/eval-run-config.js";
import { openCallCacheFile } from "../question-run/open-call-cache.js";
import { runEvalQuestions } from "../question-run/run-eval-questions.js";
import { plural } from "../util/format-numbers.js";
import type { EvalOptions } from "./command-options.js";
import { runEvalGenerate } from "./eval-generate-command.js";
import { type CommandContext, writeJSON } from "./io.js";
import { chooseJudge } from "./models.js";
import { chooseModels, openRetrieval, queryCommand } from "./pipeline.js";
import type { Progress } from "./progress.js";
import { EXIT_OK } from "./usage-error.js";

/**
 * `ragsynth eval`: retrieve each question once, answer it in every mode, score retrieval, answers (and with
 * `--judge`, LlamaIndex's judges) and cost; print a table per mode, `--json`, or write `--report`.
 */
export async function runEval(options: EvalOptions, context: CommandContext): Promise<number> {
  if (options.generate) return runEvalGenerate(options, context);
  const { io, signal } = context;
  return queryCommand(options, io, async (progress, style) => {
    const questionsPath = resolve(io.cwd, options.questions);
    const questions = parseEvalQuestions(await readFile(questionsPath, "utf8"));
    const models = chooseModels(options, io, {});
    const judgeChoice = chooseJudge(options, io.env);
    // Every call that costs money goes through the call cache, so a rerun pays only for what is new.
    // With --redis the workers make the calls, through the call cache in their Redis.
    const paid = !options.redis && !models.llmChoice.defaulted && models.llmChoice.label !== "extractive";
    const cachePath =
      options.callCache ??
      (paid || (judgeChoice && !options.redis) ? `${options.questions}.calls.jsonl` : undefined);
    const store: CallCacheStore | undefined = cachePath
      ? await openCallCacheFile(resolve(io.cwd, cachePath), io.env[CACHE_HMAC_KEY_ENV], (text) =>
          io.stderr.write(text),
        )
      : undefined;
    const cached = (llm: LLM, baseURL: string | undefined) =>
      store ? withCallCache({ llm, store, baseURL }) : llm;
    const llm = cached(models.llm, models.llmChoice.baseURL);
    const judge = judgeChoice && cached(judgeChoice.create(), judgeChoice.baseURL);

    const { opened, query, promptHelper } = await openRetrieval(options, models, context, progress);
    progress.start(
      `Evaluating ${plural(questions.length, "question")} × ${plural(options.modes.length, "mode")}${options.redis ? " on the workers" : ""}`,
      questions.length,
    );
    const prices = resolvePrices({
      model: llm.metadata.model,
      input: options.priceIn,
      output: options.priceOut,
    });
    const report = await runEvalQuestions({
      questions,
      query,
      llm,
      judge,
      modes: options.modes,
      k: options.topK,
      promptHelper,
      prices,
      citations: options.citations,
      concurrency: options.concurrency,
      ...(options.out ? { resultsFile: resolve(io.cwd, options.out) } : {}),
      redis: options.redis
        ? {
            url: options.redis,
            queueName: options.queue,
            questionsPath,
            // The workers open the index this run wrote: it must be on disk first.
            config: async () => evalRunConfig(options, await savedIndexDir(opened, progress), prices),
            io,
          }
        : undefined,
      onProgress: (done) => progress.update(done),
      signal,
    });
    progress.clear();
    const calls = countCachedCalls([llm, judge]);
    if (options.report) {
      await writeFile(
        resolve(io.cwd, options.report),
        (io.redact ?? ((text: string) => text))(renderEvalPage(report)),
      );
      io.stderr.write(`ragsynth: wrote the eval page to ${options.report}\n`);
    }
    await folderIndexSaved(opened, progress);
    if (options.json) {
      writeJSON(io, { command: "eval", ...report, callCache: cachePath ?? null, calls });
      return EXIT_OK;
    }
    io.stdout.write(renderEvalTable(report, style));
    if (calls) {
      io.stdout.write(
        style.dim(
          `Model calls: ${calls.paid} paid, ${calls.replayed} replayed from the call cache (${cachePath}).\n`,
        ),
      );
    }
    return EXIT_OK;
  });
}

/** The index folder, once the write openRetrieval left running has finished. */
async function savedIndexDir(opened: OpenedFolderIndex, progress: Progress): Promise<string> {
  await folderIndexSaved(opened, progress);
  return opened.stats.cacheDir;
}
