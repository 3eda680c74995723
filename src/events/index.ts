export type { LLMCallStep, RagsynthEvent, RagsynthEventHandler, SynthesisUsage } from "./events.js";
