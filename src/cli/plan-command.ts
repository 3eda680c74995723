import { createEventLog, eventToJSON } from "../events/event-log.js";
import { retrievalLines } from "../events/step-listing.js";
import { folderIndexSaved } from "../index-store/folder-index.js";
import { planModes } from "../plan/plan-modes.js";
import { planBudget, planChunks, renderPlan, renderPlanHeading } from "../plan/render-plan.js";
import { retrievalEngine } from "../question-run/index-query.js";
import { sourceToJSON } from "../schema/node-source.js";
import { plural } from "../util/format-numbers.js";
import type { PlanOptions } from "./command-options.js";
import { type CommandContext, writeJSON } from "./io.js";
import { optimizerNotes } from "./notes.js";
import { chooseModels, openRetrieval, progressFromEvents, queryCommand } from "./pipeline.js";

import { writePlanReport } from "./trace-page/index.js";
import { EXIT_OK } from "./usage-error.js";

/** `ragsynth plan`: retrieve, then show how each mode would pack the context, without calling the model. */
export async function runPlan(options: PlanOptions, context: CommandContext): Promise<number> {
  const { io, signal } = context;
  return queryCommand(options, io, async (progress, style) => {
    const models = chooseModels(options, io);
    const { metadata } = models;
    const { opened, query, promptHelper } = await openRetrieval(options, models, context, progress, {
      // A question wants its answer now: from what another process building the index has written so far.
      whileAnotherBuilds: "answer-as-is",
    });
    const log = createEventLog();
    const showProgress = progressFromEvents(progress);
    // Retrieval and postprocessing as ask runs them; the engine's synthesizer is never called.
    const engine = retrievalEngine(query, {
      tokenizer: promptHelper.tokenizer,
      onEvent: (event) => {
        log.handler(event);
        showProgress(event);
      },
    });
    const nodes = await engine.retrieve({ query: options.query, signal });
    progress.clear();
    for (const note of optimizerNotes(log.events)) io.stderr.write(`${note}\n`);
    progress.start(`Planning ${plural(options.modes.length, "mode")}`);
    const plans = await planModes({
      modes: options.modes,
      nodes,
      query: options.query,
      metadata,
      promptHelper,
      prices: { input: options.priceIn, output: options.priceOut },
      signal,
    });
    progress.clear();
    const chunks = planChunks(nodes, promptHelper.tokenizer);
    if (options.report) {
      await writePlanReport(options.report, {
        redact: io.redact,
        plans,
        chunks: chunks.map(({ name, tokens }) => ({ name, tokens })),
        query: options.query,
        model: metadata.model,
        contextWindow: promptHelper.contextWindow,
        numOutput: promptHelper.numOutput,
      });
      io.stderr.write(`ragsynth: wrote the plan page to ${options.report}\n`);
    }
    const budget = planBudget(metadata, promptHelper);

    if (options.json) {
      // Before the JSON: a failed write makes the error the one JSON document on stdout.
      await folderIndexSaved(opened, progress);
      writeJSON(io, {
        command: "plan",
        query: options.query,
        budget,
        prices: { inputPerMillion: options.priceIn ?? null, outputPerMillion: options.priceOut ?? null },
        chunks: nodes.map((node, index) => ({
          ...sourceToJSON(node, index),
          tokens: chunks[index]?.tokens,
        })),
        index: opened.stats,
        modes: plans,
        events: log.events.map(eventToJSON),
      });
      return EXIT_OK;
    }

    io.stdout.write(`${renderPlanHeading({ query: options.query, budget, chunks, style })}\n`);
    if (log.events.some((event) => event.type === "postprocess-end")) {
      io.stdout.write(`${retrievalLines(log.events).join("\n")}\n\n`);
    }
    io.stdout.write(renderPlan(plans, { numOutput: promptHelper.numOutput, style }));
    await folderIndexSaved(opened, progress);
    return EXIT_OK;
  });
}
