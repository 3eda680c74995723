import { afterEach, vi } from "vitest";
import {
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  startFakeOpenAIServer,
} from "./fake-openai-server.js";

/**
 * For test files: a starter for fake OpenAI servers that are all closed after each test, with environment
 * stubs undone, so no test leaks a listening socket or an `OPENAI_*` variable into the next.
 */
export function fakeServersClosedAfterEach(): (
  options?: FakeOpenAIServerOptions,
) => Promise<FakeOpenAIServer> {
  const open = new Set<FakeOpenAIServer>();
  afterEach(async () => {
    await Promise.all([...open].map((server) => server.close()));
    open.clear();
    vi.unstubAllEnvs();
  });
  return async (options) => {
    const server = await startFakeOpenAIServer(options);
    open.add(server);
    return server;
  };
}
