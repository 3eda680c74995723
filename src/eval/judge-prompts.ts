import { ChatPromptTemplate, PromptTemplate } from "../prompt/prompt-template.js";

// LlamaIndex's evaluator prompts (llama_index/core/evaluation/faithfulness.py, relevancy.py, correctness.py),
// text for text, quirks included (the run of spaces and the missing space where the Python source continues a
// string with a backslash), so that scores compare with LlamaIndex's.

/** Faithfulness, first call: is the answer (`query_str`) supported by the context? Answers YES or NO. */
export const FAITHFULNESS_EVAL_PROMPT = new PromptTemplate({
  promptType: "text_qa",
  template:
    "Please tell if a given piece of information is supported by the context.\n" +
    "You need to answer with either YES or NO.\n" +
    "Answer YES if any of the context supports the information, even if most of the context is unrelated. " +
    "Some examples are provided below. \n\n" +
    "Information: Apple pie is generally double-crusted.\n" +
    "Context: An apple pie is a fruit pie in which the principal filling ingredient is apples. \n" +
    "Apple pie is often served with whipped cream, ice cream ('apple pie à la mode'), custard or cheddar cheese.\n" +
    "It is generally double-crusted, with pastry both above and below the filling; the upper crust may be solid or " +
    "latticed (woven of crosswise strips).\n" +
    "Answer: YES\n" +
    "Information: Apple pies tastes bad.\n" +
    "Context: An apple pie is a fruit pie in which the principal filling ingredient is apples. \n" +
    "Apple pie is often served with whipped cream, ice cream ('apple pie à la mode'), custard or cheddar cheese.\n" +
    "It is generally double-crusted, with pastry both above and below the filling; the upper crust may be solid or " +
    "latticed (woven of crosswise strips).\n" +
    "Answer: NO\n" +
    "Information: {query_str}\n" +
    "Context: {context_str}\n" +
    "Answer: ",
});

/** The second half of both refine prompts (LlamaIndex's, word for word): the new context and the YES/NO rule. */
const REFINE_YES_NO =
  "We have the opportunity to refine the existing answer (only if needed) with some more context below.\n" +
  "------------\n" +
  "{context_msg}\n" +
  "------------\n" +
  "If the existing answer was already YES, still answer YES. " +
  "If the information is present in the new context, answer YES. " +
  "Otherwise answer NO.\n";

/** Faithfulness, each further pack of context. */
export const FAITHFULNESS_REFINE_PROMPT = new PromptTemplate({
  promptType: "refine",
  template:
    "We want to understand if the following information is present in the context information: {query_str}\n" +
    "We have provided an existing YES/NO answer: {existing_answer}\n" +
    REFINE_YES_NO,
});

/** Relevancy, first call: are the question and answer (`query_str`) in line with the context? */
export const RELEVANCY_EVAL_PROMPT = new PromptTemplate({
  promptType: "text_qa",
  template:
    "Your task is to evaluate if the response for the query     is in line with the context information provided.\n" +
    "You have two options to answer. Either YES/ NO.\n" +
    "Answer - YES, if the response for the query     is in line with context information otherwise NO.\n" +
    "Query and Response: \n {query_str}\n" +
    "Context: \n {context_str}\n" +
    "Answer: ",
});

/** Relevancy, each further pack of context. */
export const RELEVANCY_REFINE_PROMPT = new PromptTemplate({
  promptType: "refine",
  template:
    "We want to understand if the following query and response isin line with the context information: \n {query_str}\n" +
    "We have provided an existing YES/NO answer: \n {existing_answer}\n" +
    REFINE_YES_NO,
});

/** How relevancy puts the question and the answer into `query_str`. */
export function relevancyQuery(query: string, answer: string): string {
  return `Question: ${query}\nResponse: ${answer}`;
}

const CORRECTNESS_SYSTEM = `
You are an expert evaluation system for a question answering chatbot.

You are given the following information:
- a user query, and
- a generated answer

You may also be given a reference answer to use for reference in your evaluation.

Your job is to judge the relevance and correctness of the generated answer.
Output a single score that represents a holistic evaluation.
You must return your response in a line with only the score.
Do not return answers in any other format.
On a separate line provide your reasoning for the score as well.

Follow these guidelines for scoring:
- Your score has to be between 1 and 5, where 1 is the worst and 5 is the best.
- If the generated answer is not relevant to the user query, you should give a score of 1.
- If the generated answer is relevant but contains mistakes, you should give a score between 2 and 3.
- If the generated answer is relevant and fully correct, you should give a score between 4 and 5.

Example Response:
4.0
The generated answer has the exact same metrics as the reference answer,     but it is not as concise.

`;

const CORRECTNESS_USER = `
## User Query
{query}

## Reference Answer
{reference_answer}

## Generated Answer
{generated_answer}
`;

/** Correctness: a 1–5 score on the first line, the reasoning after it. */
export const CORRECTNESS_EVAL_PROMPT = new ChatPromptTemplate({
  messages: [
    { role: "system", content: CORRECTNESS_SYSTEM },
    { role: "user", content: CORRECTNESS_USER },
  ],
});

/** What correctness sends as the reference when the question has none (LlamaIndex's words). */
export const NO_REFERENCE = "(NO REFERENCE ANSWER SUPPLIED)";

/** LlamaIndex's passing score for correctness. */
export const CORRECTNESS_THRESHOLD = 4;
