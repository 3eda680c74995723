export {
  type RetryEvent,
  type RetryInternals,
  type RetryOptions,
  retryWithBackoff,
} from "./retry.js";
