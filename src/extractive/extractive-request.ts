import type { ChatMessage, LLMCallOptions } from "../llm/types.js";

/** What the extractive answerer was asked: a query, the context to extract from and, when refining, the previous answer. */
export interface ExtractiveRequest {
  query: string;
  context: string;
  /** Set when refining: the answer so far. */
  existingAnswer?: string;
}

const QUERY_LINE = /^\s*(?:query|question|the original query is as follows)\s*:\s*(.*)$/i;
const EXISTING_ANSWER_LINE = /^\s*(?:we have provided an existing answer|original answer)\s*:\s*(.*)$/i;
const ANSWER_CUE_LINE = /^\s*(?:answer|refined answer|new answer)\s*:\s*$/i;
const DELIMITER_LINE = /^\s*-{3,}\s*$/;

/**
 * Reads the request from the template variables (`query_str`, `context_str`, `context_msg`,
 * `existing_answer`, `promptType`), or, when there are none, from the raw prompt text.
 * @internal
 */
export function readExtractiveRequest(prompt: string, options: LLMCallOptions): ExtractiveRequest {
  const variables = options.templateVariables;
  if (
    variables &&
    ["query_str", "context_str", "context_msg", "existing_answer"].some((name) => name in variables)
  ) {
    const request: ExtractiveRequest = {
      query: variables.query_str ?? "",
      // An image is only its placeholder here: the answerer reads captions and alt text, never pixels.
      context: (variables.context_msg ?? variables.context_str ?? "").replace(/^\[image\]$/gm, ""),
    };
    const existingAnswer = variables.existing_answer;
    if (existingAnswer !== undefined || options.promptType === "refine") {
      request.existingAnswer = existingAnswer ?? "";
    }
    return request;
  }
  return parseRawPrompt(prompt);
}

/** The chat form: a raw prompt made of the messages, with the last user message as the query if no line names one. @internal */
export function readExtractiveChatRequest(
  messages: ChatMessage[],
  options: LLMCallOptions,
): ExtractiveRequest {
  const prompt = messages.map((message) => message.content).join("\n");
  const request = readExtractiveRequest(prompt, options);
  if (options.templateVariables !== undefined || request.query !== "") return request;
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  const others = messages.filter((_, index) => index !== lastUser).map((message) => message.content);
  if (lastUser === -1 || others.length === 0) return request;
  return { query: (messages[lastUser] as ChatMessage).content, context: others.join("\n") };
}

/**
 * Best effort for prompts formatted by someone else: the last `Query:` line is the query; the text
 * between the first and last `---` delimiter lines is the context (LlamaIndex's templates), or else
 * the whole prompt without the query and answer-cue lines.
 */
function parseRawPrompt(prompt: string): ExtractiveRequest {
  const lines = prompt.split(/\r?\n/);
  let query = "";
  let queryLine = -1;
  let existingAnswer: string | undefined;
  const delimiters: number[] = [];
  lines.forEach((line, index) => {
    const queryMatch = QUERY_LINE.exec(line);
    if (queryMatch) {
      query = (queryMatch[1] ?? "").trim();
      queryLine = index;
    }
    const answerMatch = EXISTING_ANSWER_LINE.exec(line);
    if (answerMatch) existingAnswer = (answerMatch[1] ?? "").trim();
    if (DELIMITER_LINE.test(line)) delimiters.push(index);
  });
  const first = delimiters[0];
  const last = delimiters[delimiters.length - 1];
  const context =
    first !== undefined && last !== undefined && last > first
      ? lines.slice(first + 1, last).join("\n")
      : lines
          .filter(
            (line, index) =>
              index !== queryLine && !ANSWER_CUE_LINE.test(line) && !EXISTING_ANSWER_LINE.test(line),
          )
          .join("\n");
  return existingAnswer === undefined ? { query, context } : { query, context, existingAnswer };
}
