import { findOutputOverInput, type OutputOverInputOptions } from "../util/output-over-input.js";
import { UsageError } from "./usage-error.js";

/**
 * Refuses to start a command whose output would land on one of its inputs ({@link findOutputOverInput}, by flag).
 * Nothing is written or read before this check, so the input is untouched.
 * @throws UsageError (exit 2) naming the flag, the input and how to fix it
 */
export async function refuseOutputOverInput(options: OutputOverInputOptions): Promise<void> {
  const found = await findOutputOverInput(options);
  if (!found) return;
  const { name: flag, path, input, same } = found;
  const example =
    flag === "--report" ? "report.html" : flag === "--call-cache" ? "calls.jsonl" : "answers.jsonl";
  throw new UsageError(
    same
      ? `${flag} ${path} is the ${input.what} this command reads; writing there would destroy it.`
      : `${flag} ${path} is a file inside the ${input.what} (${input.real}); writing there would replace a document.`,
    `Give ${flag} a new file outside the inputs, e.g. ${flag} ${example}.`,
  );
}
