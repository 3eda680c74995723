import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // The examples and the tests under test/ import the package by name, as users do; they run against the sources.
    alias: [
      {
        find: /^ragsynth\/extend$/,
        replacement: fileURLToPath(new URL("./src/extend/index.ts", import.meta.url)),
      },
      {
        find: /^ragsynth\/testing$/,
        replacement: fileURLToPath(new URL("./src/testing/index.ts", import.meta.url)),
      },
      {
        find: /^ragsynth\/langchain$/,
        replacement: fileURLToPath(new URL("./src/langchain/index.ts", import.meta.url)),
      },
      {
        find: /^ragsynth\/batch$/,
        replacement: fileURLToPath(new URL("./src/batch/index.ts", import.meta.url)),
      },
      { find: /^ragsynth$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Type tests (expectTypeOf): `npm run typecheck` (CI) checks them with the rest of tsconfig.test.json;
    // `npx vitest run --typecheck.only` runs them as vitest tests, reported one by one.
    typecheck: { include: ["test/types/**/*.test-d.ts"], tsconfig: "./tsconfig.test.json" },
    // Starts (or finds) the redis-server the BullMQ tests use; CI=true without one fails the run.
    // The same for the PostgreSQL server of the store tests (RAGSYNTH_TEST_POSTGRES_URL).
    globalSetup: ["test/redis/global-setup.ts", "test/postgres/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
