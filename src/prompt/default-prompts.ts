import { ChatPromptTemplate, PromptTemplate, SelectorPromptTemplate } from "./prompt-template.js";

// The texts are LlamaIndex's (llama-index-core 0.14.14), byte for byte; see ../shared/spec/default-prompts.txt.

export const DEFAULT_TEXT_QA_PROMPT_TMPL =
  "Context information is below.\n---------------------\n{context_str}\n---------------------\n" +
  "Given the context information and not prior knowledge, answer the query.\nQuery: {query_str}\nAnswer: ";

export const DEFAULT_REFINE_PROMPT_TMPL =
  "The original query is as follows: {query_str}\nWe have provided an existing answer: {existing_answer}\n" +
  "We have the opportunity to refine the existing answer (only if needed) with some more context below.\n" +
  "------------\n{context_msg}\n------------\n" +
  "Given the new context, refine the original answer to better answer the query. " +
  "If the context isn't useful, return the original answer.\nRefined Answer: ";

export const DEFAULT_TREE_SUMMARIZE_TMPL =
  "Context information from multiple sources is below.\n---------------------\n{context_str}\n---------------------\n" +
  "Given the information from multiple sources and not prior knowledge, answer the query.\nQuery: {query_str}\nAnswer: ";

export const DEFAULT_SIMPLE_INPUT_TMPL = "{query_str}";

/** The system message of the chat QA and tree-summarize prompts. */
export const TEXT_QA_SYSTEM_PROMPT =
  "You are an expert Q&A system that is trusted around the world.\n" +
  "Always answer the query using the provided context information, and not prior knowledge.\n" +
  "Some rules to follow:\n" +
  "1. Never directly reference the given context in your answer.\n" +
  "2. Avoid statements like 'Based on the context, ...' or 'The context information ...' or anything along those lines.";

export const CHAT_REFINE_PROMPT_TMPL =
  "You are an expert Q&A system that strictly operates in two modes when refining existing answers:\n" +
  "1. **Rewrite** an original answer using the new context.\n" +
  "2. **Repeat** the original answer if the new context isn't useful.\n" +
  "Never reference the original answer or context directly in your answer.\n" +
  "When in doubt, just repeat the original answer.\n" +
  "New Context: {context_msg}\nQuery: {query_str}\nOriginal Answer: {existing_answer}\nNew Answer: ";

export const DEFAULT_TEXT_QA_PROMPT = new PromptTemplate({
  template: DEFAULT_TEXT_QA_PROMPT_TMPL,
  promptType: "text_qa",
});
export const DEFAULT_REFINE_PROMPT = new PromptTemplate({
  template: DEFAULT_REFINE_PROMPT_TMPL,
  promptType: "refine",
});
export const DEFAULT_TREE_SUMMARIZE_PROMPT = new PromptTemplate({
  template: DEFAULT_TREE_SUMMARIZE_TMPL,
  promptType: "summary",
});
export const DEFAULT_SIMPLE_INPUT_PROMPT = new PromptTemplate({
  template: DEFAULT_SIMPLE_INPUT_TMPL,
  promptType: "simple_input",
});

export const CHAT_TEXT_QA_PROMPT = new ChatPromptTemplate({
  messages: [
    { role: "system", content: TEXT_QA_SYSTEM_PROMPT },
    { role: "user", content: DEFAULT_TEXT_QA_PROMPT_TMPL },
  ],
  promptType: "text_qa",
});
export const CHAT_TREE_SUMMARIZE_PROMPT = new ChatPromptTemplate({
  messages: [
    { role: "system", content: TEXT_QA_SYSTEM_PROMPT },
    { role: "user", content: DEFAULT_TREE_SUMMARIZE_TMPL },
  ],
  promptType: "summary",
});
export const CHAT_REFINE_PROMPT = new ChatPromptTemplate({
  messages: [{ role: "user", content: CHAT_REFINE_PROMPT_TMPL }],
  promptType: "refine",
});

/** Text QA: the completion prompt, or the chat prompt with its system message for chat models. */
export const DEFAULT_TEXT_QA_PROMPT_SEL = new SelectorPromptTemplate({
  defaultTemplate: DEFAULT_TEXT_QA_PROMPT,
  chatTemplate: CHAT_TEXT_QA_PROMPT,
});
export const DEFAULT_REFINE_PROMPT_SEL = new SelectorPromptTemplate({
  defaultTemplate: DEFAULT_REFINE_PROMPT,
  chatTemplate: CHAT_REFINE_PROMPT,
});
export const DEFAULT_TREE_SUMMARIZE_PROMPT_SEL = new SelectorPromptTemplate({
  defaultTemplate: DEFAULT_TREE_SUMMARIZE_PROMPT,
  chatTemplate: CHAT_TREE_SUMMARIZE_PROMPT,
});

/**
 * The JSON Schema of a structured refine answer (LlamaIndex's `StructuredRefineResponse`), with
 * `query_satisfied` first so a streaming parser can abandon an irrelevant chunk after a few tokens.
 */
export const STRUCTURED_REFINE_RESPONSE_SCHEMA = {
  name: "StructuredRefineResponse",
  schema: {
    type: "object",
    description:
      "Used to answer a given query based on the provided context.\n\nAlso indicates if the query was satisfied with the provided answer.",
    properties: {
      query_satisfied: {
        type: "boolean",
        description: "True if there was enough context given to provide an answer that satisfies the query.",
      },
      answer: {
        type: "string",
        description: "The answer for the given query, based on the context and not prior knowledge.",
      },
    },
    required: ["query_satisfied", "answer"],
    additionalProperties: false,
  },
} as const;

/**
 * Instructions appended to the prompt when a model has no native JSON-Schema mode (LlamaIndex's
 * pydantic output-parser text). `{schema}` is filled in once, at render time.
 */
export const JSON_SCHEMA_INSTRUCTIONS_TMPL =
  "\n\nHere's a JSON schema to follow:\n{schema}\n\nOutput a valid JSON object but do not repeat the schema.\n";

// The multimodal QA and tree-summarize prompts' user messages are the text prompts' words (upstream repeats them);
// the blocks go where `{context_str}` is.
/** The system message of the multimodal refine prompt (upstream splits refine into system + user here). */
export const CHAT_CONTENT_REFINE_SYSTEM_PROMPT =
  "You are an expert Q&A system that strictly operates in two modes when refining existing answers:\n" +
  "1. **Rewrite** an original answer using the new context.\n" +
  "2. **Repeat** the original answer if the new context isn't useful.\n" +
  "Never reference the original answer or context directly in your answer.\n" +
  "When in doubt, just repeat the original answer.";
/** The user message of the multimodal refine prompt: the blocks go where `{context_msg}` is. */
export const CHAT_CONTENT_REFINE_PROMPT_TMPL =
  "New Context:\n---------------------\n{context_msg}\n---------------------\n" +
  "Query: {query_str}\nOriginal Answer: {existing_answer}\nNew Answer: ";

/**
 * Multimodal QA (LlamaIndex's `CHAT_CONTENT_QA_PROMPT`): used when the nodes hold images; the text and image
 * blocks replace `{context_str}` as content parts of the user message.
 */
export const CHAT_CONTENT_QA_PROMPT = new ChatPromptTemplate({
  messages: [
    { role: "system", content: TEXT_QA_SYSTEM_PROMPT },
    { role: "user", content: DEFAULT_TEXT_QA_PROMPT_TMPL },
  ],
  promptType: "text_qa",
});
/** Multimodal tree summarize (LlamaIndex's `CHAT_CONTENT_TREE_SUMMARIZE_PROMPT`). */
export const CHAT_CONTENT_TREE_SUMMARIZE_PROMPT = new ChatPromptTemplate({
  messages: [
    { role: "system", content: TEXT_QA_SYSTEM_PROMPT },
    { role: "user", content: DEFAULT_TREE_SUMMARIZE_TMPL },
  ],
  promptType: "summary",
});
/** Multimodal refine (LlamaIndex's `CHAT_CONTENT_REFINE_PROMPT`): blocks replace `{context_msg}`. */
export const CHAT_CONTENT_REFINE_PROMPT = new ChatPromptTemplate({
  messages: [
    { role: "system", content: CHAT_CONTENT_REFINE_SYSTEM_PROMPT },
    { role: "user", content: CHAT_CONTENT_REFINE_PROMPT_TMPL },
  ],
  promptType: "refine",
});
