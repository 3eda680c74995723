import { PromptTemplate } from "../prompt/prompt-template.js";
import { MetadataMode, type TextNode } from "../schema/text-node.js";

// LlamaIndex's DEFAULT_CHOICE_SELECT_PROMPT_TMPL (llama-index-core prompts/default_prompts.py), byte for byte,
// trailing spaces included.
export const DEFAULT_CHOICE_SELECT_PROMPT_TMPL =
  "A list of documents is shown below. Each document has a number next to it along " +
  "with a summary of the document. A question is also provided. \n" +
  "Respond with the numbers of the documents " +
  "you should consult to answer the question, in order of relevance, as well \n" +
  "as the relevance score. The relevance score is a number from 1-10 based on " +
  "how relevant you think the document is to the question.\n" +
  "Do not include any documents that are not relevant to the question. \n" +
  "Example format: \n" +
  "Document 1:\n<summary of document 1>\n\n" +
  "Document 2:\n<summary of document 2>\n\n" +
  "...\n\n" +
  "Document 10:\n<summary of document 10>\n\n" +
  "Question: <question>\n" +
  "Answer:\n" +
  "Doc: 9, Relevance: 7\n" +
  "Doc: 3, Relevance: 4\n" +
  "Doc: 7, Relevance: 3\n\n" +
  "Let's try this now: \n\n" +
  "{context_str}\n" +
  "Question: {query_str}\n" +
  "Answer:\n";

/** The prompt {@link LLMRerank} sends by default: LlamaIndex's choice-select prompt, unchanged. */
export const DEFAULT_CHOICE_SELECT_PROMPT = new PromptTemplate({
  template: DEFAULT_CHOICE_SELECT_PROMPT_TMPL,
  promptType: "custom",
});

/** Numbers a batch as LlamaIndex does: `"Document 1:\n<content>"` blocks joined by a blank line. */
export function formatNodeBatch(nodes: readonly TextNode[]): string {
  return nodes
    .map((node, index) => `Document ${index + 1}:\n${node.getContent(MetadataMode.LLM)}`)
    .join("\n\n");
}
