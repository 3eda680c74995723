/** The six response modes that pack retrieved context into prompts (not generation, no_text or context_only). */
export const PACKING_MODES = [
  "refine",
  "compact",
  "tree_summarize",
  "simple_summarize",
  "accumulate",
  "compact_accumulate",
] as const;
