export { ExtractiveLLM, type ExtractiveLLMOptions } from "./extractive-llm.js";
