// Write your own synthesizer: your prompt over the joined chunks, with the budget, events and usage for free.
import { ExtractiveLLM, PromptTemplate, TextNode } from "ragsynth";
import { createSynthesizer } from "ragsynth/extend";

const quotePrompt = new PromptTemplate({
  template:
    "Quote the passage that answers the question.\nPassages:\n{context_str}\nQuestion: {query_str}\nQuote: ",
  promptType: "text_qa",
});

export async function main() {
  const events: string[] = [];
  const quoted = createSynthesizer({
    mode: "quote",
    llm: new ExtractiveLLM(),
    prompts: { text_qa_template: quotePrompt },
    onEvent: (event) => events.push(event.type),
    run: async (context) => {
      const template = context.prompts.text_qa_template ?? quotePrompt;
      // Fit as many chunks as the window allows next to this prompt; the rest is never silently dropped:
      // repack keeps all the text, and we answer from the first packed chunk only, saying so.
      const budget = context.budget({ variables: { query_str: context.query } });
      const [first, ...rest] = context.promptHelper.repack(template, [...context.chunks], budget);
      const { text } = await context.stream(
        template,
        { query_str: context.query, context_str: first ?? "" },
        { step: { kind: "custom", name: "quote" }, context: first ?? "" },
      );
      return rest.length === 0 ? text : `${text} (${rest.length} more chunk(s) not read)`;
    },
  });
  const response = await quoted.synthesize({
    query: "Who wrote Hamlet?",
    nodes: [{ node: new TextNode({ text: "Hamlet is a tragedy written by William Shakespeare." }) }],
  });
  console.log(response.toString(), events);
  return { response, events };
}
