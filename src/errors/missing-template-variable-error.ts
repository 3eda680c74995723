import { checkErrorFields } from "./check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "./ragsynth-error.js";

const marker = "ragsynth.error.MissingTemplateVariableError";

/** A template was formatted without a value for one or more of its variables. */
export class MissingTemplateVariableError extends RagsynthError {
  readonly variables: string[];
  readonly template: string;

  constructor(fields: { variables: string[]; template: string }) {
    const { variables, template } = checkErrorFields(fields, "MissingTemplateVariableError", {
      variables: "string[]",
      template: "string",
    });
    const names = variables.map((name) => `{${name}}`).join(", ");
    super({
      code: "missing_template_variable",
      message: `Template variable${variables.length > 1 ? "s" : ""} ${names} ${variables.length > 1 ? "have" : "has"} no value. Pass ${variables.map((name) => `\`${name}\``).join(", ")} to format(), or fill ${variables.length > 1 ? "them" : "it"} earlier with partialFormat().`,
    });
    this.name = "MissingTemplateVariableError";
    markError(this, marker);
    this.variables = variables;
    this.template = template;
  }

  /** True when `error` is a {@link MissingTemplateVariableError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is MissingTemplateVariableError {
    return hasErrorMarker(error, marker);
  }
}
