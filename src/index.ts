export * from "./embedding/index.js";
export * from "./errors/index.js";
export * from "./llm/index.js";
export * from "./prompt/index.js";
export * from "./schema/index.js";
export * from "./tokenizer/index.js";
