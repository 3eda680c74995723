import { createEventLog, eventToJSON } from "../events/event-log.js";
import { type ModePlan, type PlanScenario, planModes, type Range } from "../plan/plan-modes.js";
import { countNodeTokens } from "../postprocessor/count-node-tokens.js";
import { RetrieverQueryEngine } from "../query-engine/retriever-query-engine.js";
import { sourceName } from "../schema/node-source.js";
import { sourceToJSON } from "./ask-command.js";
import { formatCount, formatUsd, plural } from "./format.js";
import type { CommandContext } from "./io.js";
import { colorEnabled, createStyle, type Style } from "./io.js";
import { indexSaved } from "./open-index.js";
import type { PlanOptions } from "./parse-command.js";
import { chooseModels, createPromptHelper, openRetrieval, progressFromEvents } from "./pipeline.js";
import { createProgress } from "./progress.js";
import { refuseOutputOverInput } from "./refuse-output-over-input.js";
import { writePlanReport } from "./report.js";
import { optimizerNotes, retrievalLines } from "./step-listing.js";
import { EXIT_OK } from "./usage-error.js";

function formatRange(range: Range, format: (value: number) => string = formatCount): string {
  return range.min === range.max ? format(range.min) : `${format(range.min)}–${format(range.max)}`;
}

function tokenList(tokens: readonly number[], limit = 6): string {
  const shown = tokens.slice(0, limit).map(formatCount);
  if (tokens.length > limit) shown.push(`… +${tokens.length - limit}`);
  return `[${shown.join(", ")}]`;
}

/** The context each call of a scenario would carry, as `n × [tokens…]`, with tree levels. */
function describeContext(plan: ModePlan, scenario: PlanScenario): string {
  if (scenario.error) return `fails: ${scenario.error.code ?? "error"}`;
  if (plan.mode === "no_text") return "nothing sent";
  if (plan.mode === "context_only") return "chunks returned as the answer";
  if (plan.mode === "generation") return "query only";
  if (plan.mode === "tree_summarize") {
    return scenario.packs.map((pack) => `L${pack.round} ${tokenList(pack.chunkTokens, 4)}`).join(" → ");
  }
  const tokens = scenario.packs.flatMap((pack) => pack.chunkTokens);
  const truncated = scenario.packs.reduce((sum, pack) => sum + (pack.truncatedTokens ?? 0), 0);
  return `${plural(tokens.length, "chunk")} ${tokenList(tokens)}${truncated > 0 ? `, ${formatCount(truncated)} truncated` : ""}`;
}

function table(rows: string[][], style: Style): string[] {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows.map((row, index) => {
    const line = row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
    return index === 0 ? style.bold(line) : line;
  });
}

/** The side-by-side table of the modes, and notes on what the ranges mean. */
export function renderPlan(
  plans: readonly ModePlan[],
  { numOutput, style }: { numOutput: number; style: Style },
): string {
  const withCost = plans.some((plan) => plan.costUsd !== undefined);
  const withImages = plans.some((plan) => plan.imageTokens.max > 0);
  const header = ["mode", "LLM calls", "prompt tokens", "completion ≤", "context per call (tokens)"];
  if (withImages) header.splice(3, 0, "image tokens");
  if (withCost) header.splice(header.length - 1, 0, "cost (USD)");
  const rows = [header];
  for (const plan of plans) {
    const [fewest, most] = plan.scenarios;
    const row = [
      plan.mode,
      formatRange(plan.llmCalls),
      formatRange(plan.promptTokens),
      ...(withImages ? [formatRange(plan.imageTokens)] : []),
      formatCount(plan.completionTokens.max),
    ];
    if (withCost) row.push(plan.costUsd ? formatRange(plan.costUsd, formatUsd) : "");
    const contexts = describeContext(plan, fewest);
    const mostContexts = describeContext(plan, most);
    row.push(contexts === mostContexts ? contexts : `${contexts}  |  ${mostContexts}`);
    rows.push(row);
  }
  const lines = table(rows, style);
  lines.push(
    "",
    style.dim(
      `Ranges depend on the answers: from answers of 0 tokens to answers of numOutput (${formatCount(numOutput)}) tokens;`,
    ),
    style.dim("where the packing differs it is shown for both (0 | numOutput). Single numbers are exact."),
  );
  if (withImages) {
    lines.push(
      style.dim(
        "Image tokens are part of the prompt tokens, counted by the model's image-token rule (see docs/synthesizers.md).",
      ),
    );
  }
  const failures = plans.flatMap((plan) =>
    plan.scenarios
      .filter((scenario) => scenario.error)
      .map(
        (scenario) => `${plan.mode} (answers of ${scenario.answerTokens} tokens): ${scenario.error?.message}`,
      ),
  );
  if (failures.length > 0)
    lines.push("", style.yellow("Would fail:"), ...failures.map((failure) => `  ${failure}`));
  return `${lines.join("\n")}\n`;
}

/** `ragsynth plan`: retrieve, then show how each mode would pack the context, without calling the model. */
export async function runPlan(options: PlanOptions, context: CommandContext): Promise<number> {
  const { io, signal } = context;
  // The trace page must not land on a document (row 6 of issue 25): refused before anything is read.
  await refuseOutputOverInput({
    outputs: [["--report", options.report]],
    inputs: options.paths.map((path) => ["documents", path] as const),
    cwd: io.cwd,
  });
  const progress = createProgress({ enabled: io.stderrIsTTY, sink: io.stderr, columns: io.columns });
  const style = createStyle(colorEnabled(io.stdoutIsTTY, io.env));
  try {
    const models = chooseModels(options, io);
    const { metadata } = models;
    const { opened, postprocessors } = await openRetrieval(options, models, context, progress);
    const promptHelper = createPromptHelper(metadata, options.numOutput);
    const log = createEventLog();
    const showProgress = progressFromEvents(progress);
    // Retrieval and postprocessing as ask runs them; the engine's synthesizer is never called.
    const engine = new RetrieverQueryEngine({
      retriever: opened.index.asRetriever({
        similarityTopK: options.topK,
        ...(options.retrieval ? { retrievalMode: options.retrieval } : {}),
      }),
      nodePostprocessors: postprocessors,
      responseMode: "no_text",
      onEvent: (event) => {
        log.handler(event);
        showProgress(event);
      },
      tokenizer: promptHelper.tokenizer,
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
    const nodeTokens = nodes.map((node) => countNodeTokens(node, promptHelper.tokenizer));
    if (options.report) {
      await writePlanReport(options.report, {
        redact: io.redact,
        plans,
        chunks: nodes.map((node, index) => ({ name: sourceName(node.node), tokens: nodeTokens[index] ?? 0 })),
        query: options.query,
        model: metadata.model,
        contextWindow: promptHelper.contextWindow,
        numOutput: promptHelper.numOutput,
      });
      io.stderr.write(`ragsynth: wrote the plan page to ${options.report}\n`);
    }
    const budget = {
      model: metadata.model,
      contextWindow: promptHelper.contextWindow,
      numOutput: promptHelper.numOutput,
      tokenizer: promptHelper.tokenizer.name,
      isChatModel: metadata.isChatModel,
    };

    if (options.json) {
      // Before the JSON: a failed write makes the error the one JSON document on stdout.
      await indexSaved(opened, progress);
      io.stdout.write(
        `${JSON.stringify(
          {
            command: "plan",
            query: options.query,
            budget,
            prices: { inputPerMillion: options.priceIn ?? null, outputPerMillion: options.priceOut ?? null },
            chunks: nodes.map((node, index) => ({ ...sourceToJSON(node, index), tokens: nodeTokens[index] })),
            index: opened.stats,
            modes: plans,
            events: log.events.map(eventToJSON),
          },
          null,
          2,
        )}\n`,
      );
      return EXIT_OK;
    }

    const total = nodeTokens.reduce((sum, tokens) => sum + tokens, 0);
    const lines = [
      `${style.bold("Plan for")} ${shortQuery(options.query)}`,
      `${budget.model} · context window ${formatCount(budget.contextWindow)} · numOutput ${formatCount(budget.numOutput)} · ${budget.tokenizer}` +
        `${budget.isChatModel ? " · chat" : ""} · no model was called`,
      "",
      `${style.bold("Retrieved")} ${plural(nodes.length, "chunk")}, ${formatCount(total)} tokens:`,
      ...nodes.map((node, index) => {
        const score = node.score === undefined ? "   -  " : node.score.toFixed(3).padStart(6);
        return `  [${index + 1}] ${score}  ${formatCount(nodeTokens[index] ?? 0).padStart(6)} tokens  ${sourceName(node.node)}`;
      }),
      "",
    ];
    io.stdout.write(`${lines.join("\n")}\n`);
    if (log.events.some((event) => event.type === "postprocess-end")) {
      io.stdout.write(`${retrievalLines(log.events).join("\n")}\n\n`);
    }
    io.stdout.write(renderPlan(plans, { numOutput: promptHelper.numOutput, style }));
    await indexSaved(opened, progress);
    return EXIT_OK;
  } finally {
    progress.clear();
  }
}

const SHOWN_QUERY = 200;

/** The query for the header: quoted, and cut to its first 200 characters with its length when longer. */
function shortQuery(query: string): string {
  if (query.length <= SHOWN_QUERY) return JSON.stringify(query);
  const cut = Array.from(query.slice(0, SHOWN_QUERY + 1))
    .slice(0, -1)
    .join("");
  return `${JSON.stringify(`${cut}…`)} (${query.length.toLocaleString("en-US")} characters)`;
}
