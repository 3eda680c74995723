import { optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { MissingTemplateVariableError } from "../errors/missing-template-variable-error.js";
import type { ChatMessage, MessageRole } from "../llm/types.js";
import { fillSegments, parseTemplate, type TemplateSegment, variablesOf } from "./parse-template.js";

/** What a template is for; fakes and the extractive answerer read it. */
export type PromptType = "text_qa" | "refine" | "summary" | "simple_input" | "structured_refine" | "custom";

/** Values for template variables. Numbers and booleans are turned into text. */
export type TemplateVariables = Readonly<Record<string, string | number | boolean>>;

function toStrings(variables: TemplateVariables, parameter: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(optionsOf(parameter, variables, "{ name: value, … }"))) {
    if (typeof value === "string") out[key] = value;
    else if (typeof value === "number" || typeof value === "boolean") out[key] = String(value);
    else
      throw new InvalidArgumentError({
        parameter: `${parameter}.${key}`,
        value,
        expected: "be a string, number or boolean",
        hint: "Join lists into one string before formatting (context is plain text, not a list).",
      });
  }
  return out;
}

/**
 * A completion prompt with `{name}` variables, formatted in a single pass.
 * @example new PromptTemplate({ template: "Q: {query_str}" }).format({ query_str: "$& stays" }) // "Q: $& stays"
 */
export class PromptTemplate {
  readonly kind = "completion" as const;
  readonly template: string;
  readonly promptType: PromptType;
  /** Values filled in ahead of time with {@link partialFormat}. */
  readonly partials: Readonly<Record<string, string>>;
  private readonly segments: TemplateSegment[];

  constructor(options: {
    template: string;
    /** @default "custom" */
    promptType?: PromptType;
    partials?: TemplateVariables;
  }) {
    const {
      template,
      promptType = "custom",
      partials = {},
    } = optionsOf("options", options, "{ template, promptType?, partials? }");
    checkString("template", template);
    this.template = template;
    this.promptType = promptType;
    this.partials = toStrings(partials, "partials");
    this.segments = parseTemplate(template);
  }

  /** Every variable in the template, in order of first appearance, including those already partially filled. */
  get variables(): string[] {
    return variablesOf(this.segments);
  }

  /** A copy with some variables filled in now; the rest are filled by {@link format}. */
  partialFormat(variables: TemplateVariables): PromptTemplate {
    return new PromptTemplate({
      template: this.template,
      promptType: this.promptType,
      partials: { ...this.partials, ...toStrings(variables, "variables") },
    });
  }

  /**
   * The finished prompt. Values override partials.
   * @throws MissingTemplateVariableError when a variable has no value
   */
  format(variables: TemplateVariables = {}): string {
    const { text, missing } = fillSegments(this.segments, {
      ...this.partials,
      ...toStrings(variables, "variables"),
    });
    if (missing.length > 0)
      throw new MissingTemplateVariableError({ variables: missing, template: this.template });
    return text;
  }

  /** Formats with every variable not yet filled set to `""`: the template's fixed text. */
  formatEmpty(variables: TemplateVariables = {}): string {
    const values = { ...this.partials, ...toStrings(variables, "variables") };
    for (const name of this.variables) if (!Object.hasOwn(values, name)) values[name] = "";
    return fillSegments(this.segments, values).text;
  }
}

/** A chat message whose content is a template. */
export interface ChatMessageTemplate {
  role: MessageRole;
  content: string;
}

/** A chat prompt: messages with roles, each with `{name}` variables. */
export class ChatPromptTemplate {
  readonly kind = "chat" as const;
  readonly messageTemplates: readonly ChatMessageTemplate[];
  readonly promptType: PromptType;
  readonly partials: Readonly<Record<string, string>>;
  private readonly segments: TemplateSegment[][];

  constructor(options: {
    messages: readonly ChatMessageTemplate[];
    promptType?: PromptType;
    partials?: TemplateVariables;
  }) {
    const {
      messages,
      promptType = "custom",
      partials = {},
    } = optionsOf("options", options, "{ messages, promptType?, partials? }");
    if (!Array.isArray(messages) || messages.length === 0) {
      throw new InvalidArgumentError({
        parameter: "messages",
        value: messages,
        expected: "be a non-empty array of { role, content }",
      });
    }
    this.messageTemplates = messages.map((message) => ({ ...message }));
    this.promptType = promptType;
    this.partials = toStrings(partials, "partials");
    this.segments = this.messageTemplates.map((message) => parseTemplate(message.content));
  }

  get variables(): string[] {
    const names: string[] = [];
    for (const segments of this.segments) {
      for (const name of variablesOf(segments)) if (!names.includes(name)) names.push(name);
    }
    return names;
  }

  partialFormat(variables: TemplateVariables): ChatPromptTemplate {
    return new ChatPromptTemplate({
      messages: this.messageTemplates,
      promptType: this.promptType,
      partials: { ...this.partials, ...toStrings(variables, "variables") },
    });
  }

  /** @throws MissingTemplateVariableError when a variable has no value */
  formatMessages(variables: TemplateVariables = {}): ChatMessage[] {
    const values = { ...this.partials, ...toStrings(variables, "variables") };
    const missing: string[] = [];
    const messages = this.segments.map((segments, index) => {
      const filled = fillSegments(segments, values);
      for (const name of filled.missing) if (!missing.includes(name)) missing.push(name);
      return { role: (this.messageTemplates[index] as ChatMessageTemplate).role, content: filled.text };
    });
    if (missing.length > 0) {
      throw new MissingTemplateVariableError({
        variables: missing,
        template: this.messageTemplates.map((message) => message.content).join("\n"),
      });
    }
    return messages;
  }

  /** Every variable not yet filled set to `""`. */
  formatMessagesEmpty(variables: TemplateVariables = {}): ChatMessage[] {
    const values = { ...this.partials, ...toStrings(variables, "variables") };
    for (const name of this.variables) if (!Object.hasOwn(values, name)) values[name] = "";
    return this.formatMessages(values);
  }
}

/**
 * A prompt with a completion form and, optionally, a chat form; the model's `isChatModel` picks one.
 * LlamaIndex's `SelectorPromptTemplate`, reduced to the one condition its defaults use.
 */
export class SelectorPromptTemplate {
  readonly kind = "selector" as const;
  readonly defaultTemplate: PromptTemplate;
  readonly chatTemplate: ChatPromptTemplate | undefined;

  constructor(options: { defaultTemplate: PromptTemplate; chatTemplate?: ChatPromptTemplate }) {
    const { defaultTemplate, chatTemplate } = optionsOf(
      "options",
      options,
      "{ defaultTemplate: PromptTemplate, chatTemplate?: ChatPromptTemplate }",
    );
    if ((defaultTemplate as { kind?: unknown } | undefined)?.kind !== "completion") {
      throw new InvalidArgumentError({
        parameter: "defaultTemplate",
        value: defaultTemplate,
        expected: "be a PromptTemplate",
        hint: "new SelectorPromptTemplate({ defaultTemplate: new PromptTemplate({ template }), chatTemplate? }).",
      });
    }
    if (chatTemplate !== undefined && (chatTemplate as { kind?: unknown }).kind !== "chat") {
      throw new InvalidArgumentError({
        parameter: "chatTemplate",
        value: chatTemplate,
        expected: "be a ChatPromptTemplate or left out",
      });
    }
    this.defaultTemplate = defaultTemplate;
    this.chatTemplate = chatTemplate;
  }

  get promptType(): PromptType {
    return this.defaultTemplate.promptType;
  }

  get variables(): string[] {
    return this.defaultTemplate.variables;
  }

  /** The chat form for chat models (when there is one), the completion form otherwise. */
  select(llm?: { metadata: { isChatModel: boolean } }): PromptTemplate | ChatPromptTemplate {
    return llm?.metadata.isChatModel && this.chatTemplate ? this.chatTemplate : this.defaultTemplate;
  }

  partialFormat(variables: TemplateVariables): SelectorPromptTemplate {
    return new SelectorPromptTemplate({
      defaultTemplate: this.defaultTemplate.partialFormat(variables),
      ...(this.chatTemplate ? { chatTemplate: this.chatTemplate.partialFormat(variables) } : {}),
    });
  }
}

/** Any prompt a component accepts. */
export type BasePromptTemplate = PromptTemplate | ChatPromptTemplate | SelectorPromptTemplate;

/** Components with prompts expose them by key (`text_qa_template`, `refine_template`, …). */
export interface PromptMixin {
  getPrompts(): Record<string, BasePromptTemplate>;
  /** Replaces prompts by key; unknown keys are an error that lists the known ones. */
  updatePrompts(prompts: Record<string, BasePromptTemplate>): void;
}
