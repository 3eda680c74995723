import { BatchInputError } from "../batch/batch-input-error.js";
import { parseBatchItems } from "../batch/read-batch-items.js";
import { checkString } from "../errors/check-string.js";

/** One labelled question of an eval set. Every label is optional; each enables the metrics that need it. */
export interface EvalQuestion {
  /** Unique in the file; results are keyed by it. */
  id: string;
  /** The question as a user would ask it. */
  query: string;
  /** File paths (or path suffixes such as `README.md`) and chunk ids that answer it: enables retrieval metrics. */
  relevant?: string[];
  /** A reference answer: enables token F1 and the correctness judge. */
  reference?: string;
  /** A short phrase a correct answer contains (case and whitespace ignored): enables "holds the phrase". */
  answer_hint?: string;
}

/**
 * Parses a questions file: JSONL, one `{id, query, relevant?, reference?, answer_hint?}` per line, read by the
 * batch runner's rules (`parseBatchItems`: blank lines skipped, unique ids, `query` required), then each label
 * checked. `relevant` may be one string or an array of strings.
 * @throws BatchInputError naming the line, what was expected and what arrived
 * @example parseEvalQuestions('{"id":"q1","query":"Default mode?","answer_hint":"compact"}\n')
 */
export function parseEvalQuestions(text: string): EvalQuestion[] {
  checkString("text", text);
  const items = parseBatchItems(text, { require: ["query"] });
  // parseBatchItems keeps one item per non-blank line, in order: the same split gives each item its line.
  const lines = text.split("\n").flatMap((raw, index) => (raw.trim() === "" ? [] : [index + 1]));
  return items.map((item, position) => {
    const line = lines[position] ?? 0;
    const question: EvalQuestion = { id: item.id, query: String(item.query) };
    const relevant = item.relevant;
    if (relevant !== undefined) {
      const list = typeof relevant === "string" ? [relevant] : relevant;
      if (
        !Array.isArray(list) ||
        list.length === 0 ||
        !list.every((entry) => typeof entry === "string" && entry.trim() !== "")
      ) {
        throw new BatchInputError({
          line,
          message: `question "${item.id}" has \`relevant\` ${JSON.stringify(relevant)}; expected a non-empty array of file paths or chunk ids, such as ["docs/cli.md"]. Leave it out when the answer's files are not known.`,
        });
      }
      question.relevant = list as string[];
    }
    for (const field of ["reference", "answer_hint"] as const) {
      const value = item[field];
      if (value === undefined) continue;
      if (typeof value !== "string" || value.trim() === "") {
        throw new BatchInputError({
          line,
          message: `question "${item.id}" has \`${field}\` ${JSON.stringify(value)}; expected a non-empty string. Leave it out when there is none.`,
        });
      }
      question[field] = value;
    }
    return question;
  });
}
