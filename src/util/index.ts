export {
  AdaptiveConcurrencyLimiter,
  type AdaptiveConcurrencyOptions,
  type ConcurrencyLimiter,
  isCongestion,
  type LimiterLease,
  limiterForModel,
  type RetryNotice,
} from "./concurrency-limiter.js";
export {
  type RetryEvent,
  type RetryInternals,
  type RetryOptions,
  retryWithBackoff,
} from "./retry.js";
