import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { messagesToPrompt } from "../llm/messages-to-prompt.js";
import { checkPrompt } from "../prompt/check-prompt.js";
import type { BasePromptTemplate, ChatPromptTemplate, PromptTemplate } from "../prompt/prompt-template.js";

interface SlotRule {
  /** The option name users set (`textQaTemplate`). */
  option: string;
  /** Variables the synthesizer fills. A template may use any of them. */
  filled: readonly string[];
  /** Variables the template must have, or text would be silently left out of the prompt. */
  required: readonly string[];
  /** Variables a template should have: without them it works, with a warning event (the question is not sent). */
  recommended?: readonly string[];
}

/** The variables each built-in prompt key is formatted with, by `getPrompts()` key. */
export const TEMPLATE_SLOTS: Readonly<Record<string, SlotRule>> = {
  text_qa_template: {
    option: "textQaTemplate",
    filled: ["context_str", "query_str"],
    required: ["context_str"],
    recommended: ["query_str"],
  },
  refine_template: {
    option: "refineTemplate",
    filled: ["query_str", "existing_answer", "context_msg"],
    required: ["existing_answer", "context_msg"],
    recommended: ["query_str"],
  },
  summary_template: {
    option: "summaryTemplate",
    filled: ["context_str", "query_str"],
    required: ["context_str"],
    recommended: ["query_str"],
  },
  simple_template: { option: "simpleTemplate", filled: ["query_str"], required: ["query_str"] },
  chat_content_qa_template: {
    option: "chatContentQaTemplate",
    filled: ["context_str", "query_str"],
    required: ["context_str"],
  },
  chat_content_refine_template: {
    option: "chatContentRefineTemplate",
    filled: ["query_str", "existing_answer", "context_msg"],
    required: ["existing_answer", "context_msg"],
  },
  chat_content_summary_template: {
    option: "chatContentSummaryTemplate",
    filled: ["context_str", "query_str"],
    required: ["context_str"],
  },
};

function forms(template: BasePromptTemplate): Array<PromptTemplate | ChatPromptTemplate> {
  if (template.kind !== "selector") return [template];
  return template.chatTemplate
    ? [template.defaultTemplate, template.chatTemplate]
    : [template.defaultTemplate];
}

function describe(template: PromptTemplate | ChatPromptTemplate): string {
  return template.kind === "completion" ? template.template : messagesToPrompt(template.messageTemplates);
}

/**
 * Checks, before any model call, that a template has the slots its synthesizer fills and no others.
 * Differs from LlamaIndex, where a QA template without `{context_str}` silently sends no context at all.
 * @throws InvalidArgumentError naming the missing or unknown variable
 */
export function checkTemplateSlots(key: string, template: BasePromptTemplate): void {
  const rule = TEMPLATE_SLOTS[key];
  if (!rule) return;
  checkPrompt(rule.option, template);
  for (const form of forms(template)) {
    const variables = form.variables;
    const missing = rule.required.filter((name) => !variables.includes(name));
    if (missing.length > 0) {
      throw new InvalidArgumentError({
        parameter: rule.option,
        value: describe(form),
        expected: `have the variable${missing.length > 1 ? "s" : ""} ${missing.map((name) => `{${name}}`).join(", ")}`,
        hint: `Without ${missing.length > 1 ? "them" : "it"} the retrieved text would be silently left out of the prompt. This template is formatted with ${rule.filled.map((name) => `{${name}}`).join(", ")}.`,
      });
    }
    const unfilled = variables.filter(
      (name) => !rule.filled.includes(name) && !Object.hasOwn(form.partials, name),
    );
    if (unfilled.length > 0) {
      throw new InvalidArgumentError({
        parameter: rule.option,
        value: describe(form),
        expected: `use only ${rule.filled.map((name) => `{${name}}`).join(", ")} (others must be filled with partialFormat)`,
        hint: `Nothing fills ${unfilled.map((name) => `{${name}}`).join(", ")}: call template.partialFormat({ ${unfilled.map((name) => `${name}: "…"`).join(", ")} }) first, or rename the variable.`,
      });
    }
  }
}

/**
 * Warnings for a template that works but leaves out what it should send: a text-QA, refine or summary
 * template without `{query_str}` never shows the model the question. (generation's `simple_template` needs
 * the query and is refused by {@link checkTemplateSlots} instead.)
 */
export function templateWarnings(key: string, template: BasePromptTemplate): string[] {
  const rule = TEMPLATE_SLOTS[key];
  if (!rule?.recommended) return [];
  const missing = new Set<string>();
  for (const form of forms(template)) {
    for (const name of rule.recommended) {
      if (!form.variables.includes(name) && !Object.hasOwn(form.partials, name)) missing.add(name);
    }
  }
  return [...missing].map(
    (name) =>
      `${rule.option} has no {${name}}, so the question is not in the prompt and the model answers without it. ` +
      `Add {${name}} to the template (LlamaIndex's defaults have it).`,
  );
}
