import type { PromptHelper } from "../budget/prompt-helper.js";
import type { LLMMetadata } from "../llm/types.js";
import { countNodeTokens } from "../postprocessor/count-node-tokens.js";
import { sourceName } from "../schema/node-source.js";
import { sourceScore } from "../schema/render-sources.js";
import type { NodeWithScore } from "../schema/text-node.js";
import type { Tokenizer } from "../tokenizer/tokenizer.js";
import { formatCount, formatUsd, plural } from "../util/format-numbers.js";
import { textTable } from "../util/text-table.js";
import type { ModePlan, PlanScenario, Range } from "./plan-modes.js";

/** How the table marks its header, notes and failures (the CLI's colors, or plain text). */
export interface PlanStyle {
  bold(text: string): string;
  dim(text: string): string;
  yellow(text: string): string;
}

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

/** The side-by-side table of the modes, and notes on what the ranges mean. */
export function renderPlan(
  plans: readonly ModePlan[],
  { numOutput, style }: { numOutput: number; style: PlanStyle },
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
  const lines = textTable(rows, style.bold);
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

/** The budget a plan was made for, as its heading and `ragsynth plan --json` show it. */
export interface PlanBudget {
  model: string;
  contextWindow: number;
  numOutput: number;
  tokenizer: string;
  isChatModel: boolean;
}

/** The budget of a plan for `metadata`'s model, as `promptHelper` counts it. */
export function planBudget(metadata: LLMMetadata, promptHelper: PromptHelper): PlanBudget {
  const { contextWindow, numOutput, tokenizer } = promptHelper;
  return {
    model: metadata.model,
    contextWindow,
    numOutput,
    tokenizer: tokenizer.name,
    isChatModel: metadata.isChatModel,
  };
}

/** The chunks a plan packs, as its heading lists them: name, score and tokens. */
export function planChunks(nodes: readonly NodeWithScore[], tokenizer: Tokenizer): PlanChunk[] {
  return nodes.map((node) => ({
    name: sourceName(node.node),
    score: node.score,
    tokens: countNodeTokens(node, tokenizer),
  }));
}

/** One chunk a plan packs. */
export interface PlanChunk {
  name: string;
  score: number | undefined;
  tokens: number;
}

const SHOWN_QUERY = 200;

/**
 * The heading of a plan: the query (quoted, cut to its first 200 characters with its length when longer), the
 * budget, and the chunks retrieved with their scores and tokens.
 */
export function renderPlanHeading({
  query,
  budget,
  chunks,
  style,
}: {
  query: string;
  budget: PlanBudget;
  chunks: readonly PlanChunk[];
  style: PlanStyle;
}): string {
  const cut = Array.from(query.slice(0, SHOWN_QUERY + 1))
    .slice(0, -1)
    .join("");
  const shown =
    query.length <= SHOWN_QUERY
      ? JSON.stringify(query)
      : `${JSON.stringify(`${cut}…`)} (${query.length.toLocaleString("en-US")} characters)`;
  const total = chunks.reduce((sum, chunk) => sum + chunk.tokens, 0);
  return [
    `${style.bold("Plan for")} ${shown}`,
    `${budget.model} · context window ${formatCount(budget.contextWindow)} · numOutput ${formatCount(budget.numOutput)} · ${budget.tokenizer}` +
      `${budget.isChatModel ? " · chat" : ""} · no model was called`,
    "",
    `${style.bold("Retrieved")} ${plural(chunks.length, "chunk")}, ${formatCount(total)} tokens:`,
    ...chunks.map(
      ({ name, score, tokens }, index) =>
        `  [${index + 1}] ${sourceScore(score)}  ${formatCount(tokens).padStart(6)} tokens  ${name}`,
    ),
    "",
  ].join("\n");
}
