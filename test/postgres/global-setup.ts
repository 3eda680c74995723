import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The PostgreSQL server the tests use; empty when there is none (the PostgreSQL tests then skip, visibly). */
    postgresUrl: string;
  }
}

/**
 * Gives the PostgreSQL tests a server: `RAGSYNTH_TEST_POSTGRES_URL` (.ci/run starts Debian's postgresql-15 on
 * 127.0.0.1 and sets it). Unset, they skip with a warning, except under `CI=true`, where that fails the run.
 */
export function setup(project: TestProject): void {
  const url = process.env.RAGSYNTH_TEST_POSTGRES_URL?.trim() ?? "";
  if (url === "") {
    if (process.env.CI === "true") {
      throw new Error(
        "CI=true but no PostgreSQL for the tests: set RAGSYNTH_TEST_POSTGRES_URL (.ci/run starts postgresql-15 and sets it).",
      );
    }
    console.warn(
      "\n[ragsynth] RAGSYNTH_TEST_POSTGRES_URL is not set: the PostgreSQL store tests are SKIPPED (.ci/run shows how to start one).\n",
    );
  }
  project.provide("postgresUrl", url);
}
