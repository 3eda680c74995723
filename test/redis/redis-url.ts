import { inject } from "vitest";

/** The Redis URL of the test run, or undefined when there is none (see global-setup.ts). */
export function testRedisUrl(): string | undefined {
  return inject("redisUrl") || undefined;
}
