import { NoObjectGeneratedError } from "../errors/no-object-generated-error.js";
import { extractJson } from "../prompt/predict.js";

/** A parsed `{ query_satisfied, answer }` answer. */
export interface StructuredRefineAnswer {
  querySatisfied: boolean;
  answer: string;
}

/**
 * Reads a streamed structured-refine answer as it arrives: `feed` returns `"stop"` as soon as
 * `query_satisfied` is false, and passes the `answer` field's text on once the query is known to be
 * satisfied. Text before the first `{` (a code fence) and after the object is ignored. The streaming JSON
 * parser is loaded on first use, not when ragsynth is imported.
 */
export async function createStructuredRefineParser(onAnswerDelta: (delta: string) => void = () => {}) {
  const { JSONParser } = await import("@streamparser/json");
  let started = false;
  let broken = false;
  let querySatisfied: boolean | undefined;
  let partialAnswer = "";
  let emitted = 0;
  const parser = new JSONParser({
    paths: ["$.query_satisfied", "$.answer"],
    keepStack: false,
    emitPartialTokens: true,
    emitPartialValues: true,
  });
  parser.onValue = ({ key, value, partial }) => {
    if (key === "query_satisfied" && !partial && typeof value === "boolean") querySatisfied = value;
    if (key === "answer" && typeof value === "string") partialAnswer = value;
  };
  const flush = () => {
    if (querySatisfied !== true || partialAnswer.length <= emitted) return;
    onAnswerDelta(partialAnswer.slice(emitted));
    emitted = partialAnswer.length;
  };

  return {
    /** Feeds one delta; `"stop"` means the chunk did not satisfy the query and the call can end. */
    feed(delta: string): "stop" | undefined {
      if (broken || parser.isEnded) return undefined;
      let input = delta;
      if (!started) {
        const brace = input.indexOf("{");
        if (brace === -1) return undefined;
        started = true;
        input = input.slice(brace);
      }
      try {
        parser.write(input);
      } catch {
        // Not streamable JSON (trailing prose, a second object): `finish` judges the full text.
        broken = true;
        return undefined;
      }
      if (querySatisfied === false) return "stop";
      flush();
      return undefined;
    },
    /**
     * The answer of a call that ran to the end, validated; the rest of the answer text is passed on.
     * @throws NoObjectGeneratedError when the text is not a `{ query_satisfied, answer }` object
     */
    finish(text: string): StructuredRefineAnswer {
      let value: unknown;
      try {
        value = JSON.parse(extractJson(text));
      } catch (cause) {
        throw new NoObjectGeneratedError({ text, cause, schemaName: "StructuredRefineResponse" });
      }
      const record = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
      const issues: Array<{ path: string[]; message: string }> = [];
      if (typeof record.query_satisfied !== "boolean") {
        issues.push({ path: ["query_satisfied"], message: "expected a boolean" });
      }
      if (typeof record.answer !== "string") issues.push({ path: ["answer"], message: "expected a string" });
      if (issues.length > 0) {
        throw new NoObjectGeneratedError({ text, issues, schemaName: "StructuredRefineResponse" });
      }
      querySatisfied = record.query_satisfied as boolean;
      const answer = record.answer as string;
      if (querySatisfied) {
        if (answer.startsWith(partialAnswer.slice(0, emitted))) {
          partialAnswer = answer;
          flush();
        }
      }
      return { querySatisfied, answer };
    },
  };
}
