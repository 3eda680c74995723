import { PromptTemplate } from "../prompt/prompt-template.js";

const CITATION_INSTRUCTIONS =
  "Please provide an answer based solely on the provided sources. " +
  "When referencing information from a source, " +
  "cite the appropriate source(s) using their corresponding numbers. " +
  "Every answer should include at least one source citation. " +
  "Only cite a source when you are explicitly referencing it. " +
  "If none of the sources are helpful, you should indicate that. " +
  "For example:\n" +
  "Source 1:\n" +
  "The sky is red in the evening and blue in the morning.\n" +
  "Source 2:\n" +
  "Water is wet when the sky is red.\n" +
  "Query: When is water wet?\n" +
  "Answer: Water will be wet when the sky is red [2], " +
  "which occurs in the evening [1].\n";

/** LlamaIndex's `CITATION_QA_TEMPLATE`, word for word: the first answer over numbered `Source N:` pieces. */
export const CITATION_QA_TEMPLATE = new PromptTemplate({
  template: `${CITATION_INSTRUCTIONS}Now it's your turn. Below are several numbered sources of information:\n------\n{context_str}\n------\nQuery: {query_str}\nAnswer: `,
  promptType: "text_qa",
});

/**
 * LlamaIndex's `CITATION_REFINE_TEMPLATE`, word for word (including its missing space after
 * `{existing_answer}`): refines an answer with more numbered sources.
 */
export const CITATION_REFINE_TEMPLATE = new PromptTemplate({
  template:
    `${CITATION_INSTRUCTIONS}Now it's your turn. We have provided an existing answer: {existing_answer}` +
    "Below are several numbered sources of information. Use them to refine the existing answer. " +
    "If the provided sources are not helpful, you will repeat the existing answer.\nBegin refining!" +
    "\n------\n{context_msg}\n------\nQuery: {query_str}\nAnswer: ",
  promptType: "refine",
});

/** LlamaIndex's default size of a citation piece, in tokens. */
export const DEFAULT_CITATION_CHUNK_SIZE = 512;
/** LlamaIndex's default overlap between citation pieces, in tokens. */
export const DEFAULT_CITATION_CHUNK_OVERLAP = 20;
