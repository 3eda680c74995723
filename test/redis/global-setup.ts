import type { TestProject } from "vitest/node";
import { redisServerBinary, startRedisServer, type TestRedisServer } from "./redis-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Redis the tests use; empty when there is none (the Redis tests then skip, visibly). */
    redisUrl: string;
  }
}

let started: TestRedisServer | undefined;

/**
 * Gives the Redis tests a server: `RAGSYNTH_TEST_REDIS_URL` when set (CI starts one), else a redis-server
 * started here when the binary exists. Under `CI=true` a missing Redis fails the run instead of skipping.
 */
export async function setup(project: TestProject): Promise<void> {
  const fromEnv = process.env.RAGSYNTH_TEST_REDIS_URL;
  if (fromEnv) {
    project.provide("redisUrl", fromEnv);
    return;
  }
  if (!redisServerBinary()) {
    if (process.env.CI === "true") {
      throw new Error(
        "CI=true but no Redis for the tests: set RAGSYNTH_TEST_REDIS_URL or install redis-server (.ci/run does both).",
      );
    }
    console.warn(
      "\n[ragsynth] redis-server not found: the Redis (BullMQ) tests are SKIPPED. apt-get install redis-server to run them.\n",
    );
    project.provide("redisUrl", "");
    return;
  }
  started = await startRedisServer();
  project.provide("redisUrl", started.url);
}

export async function teardown(): Promise<void> {
  await started?.dispose();
}
