// Packing lower bounds: the fewest LLM calls any packing could make without a prompt over
// `budget` (= contextWindow − numOutput) tokens and without overlap, given the templates' fixed text.
// Counts are additive approximations (±1–2 tokens at joins); good enough for a bound.
import { answerFor } from "./fake-llm.mjs";
import { ragsynthExports } from "./libs.mjs";
import { cl100kCount } from "./tokens.mjs";

/**
 * `{ compact, tree, treeRounds }` for `texts` and `query` with ragsynth's default templates (which are
 * LlamaIndex Python's), or a string when ragsynth's prompts are not built yet.
 */
export async function packingBounds({ texts, query, budget, answerTokens = 50 }) {
  const lib = await ragsynthExports([
    "DEFAULT_TEXT_QA_PROMPT",
    "DEFAULT_REFINE_PROMPT",
    "DEFAULT_TREE_SUMMARIZE_PROMPT",
  ]);
  if (typeof lib === "string") return lib;
  const answer = answerFor(0, answerTokens);
  const context = cl100kCount(texts.join("\n\n"));
  const qaFixed = cl100kCount(lib.DEFAULT_TEXT_QA_PROMPT.format({ context_str: "", query_str: query }));
  const refineFixed = cl100kCount(
    lib.DEFAULT_REFINE_PROMPT.format({ context_msg: "", query_str: query, existing_answer: answer }),
  );
  const treeFixed = cl100kCount(
    lib.DEFAULT_TREE_SUMMARIZE_PROMPT.format({ context_str: "", query_str: query }),
  );

  const qaRoom = budget - qaFixed;
  const refineRoom = budget - refineFixed;
  const compact = context <= qaRoom ? 1 : 1 + Math.ceil((context - qaRoom) / refineRoom);

  const treeRoom = budget - treeFixed;
  let level = Math.ceil(context / treeRoom);
  let tree = level;
  let treeRounds = 1;
  while (level > 1) {
    const summaries = Array.from({ length: level }, (_, i) => answerFor(i, answerTokens)).join("\n\n");
    level = Math.ceil(cl100kCount(summaries) / treeRoom);
    tree += level;
    treeRounds++;
  }
  return { compact, tree, treeRounds, context, qaFixed, refineFixed, treeFixed };
}
