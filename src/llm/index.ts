export {
  lookupModelLimits,
  MODEL_CONTEXT_WINDOWS,
  type ModelLimits,
  type ModelLimitsTable,
} from "./model-context-windows.js";
export * from "./types.js";
