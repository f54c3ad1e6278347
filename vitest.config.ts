import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Suites that take seconds each: a terminal emulator over every capture and payload, tmux, generated
 * multi-MB inputs, chromium, a real nats-server (test/fleet/nats-*), and test/e2e (agent processes: the fake agents,
 * the real CLIs, the built binary). `npm test` runs everything; `npm run test:fast` (the inner loop) leaves these out.
 */
const slow = [
  "test/views/terminal/emulator-captures.test.ts",
  "test/views/terminal/emulator-payloads.test.ts",
  "test/views/terminal/tmux.test.ts",
  "test/framing/ndjson/generated-large.test.ts",
  "test/e2e/**/*.test.ts",
  "test/views/web/**/*.test.ts",
  "test/server/live-page.test.ts",
  "test/fleet/nats-*.test.ts",
];

/**
 * Files that replace a module (`vi.mock`): a mock applies only to a module graph of the file's own, so they run
 * isolated (test/architecture.test.ts checks that every such file is listed here).
 */
export const MOCKING = ["test/cli/sinks/validation-sink.test.ts", "test/cli/lazy-nats.test.ts"];

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/helpers/isolate-home.ts"],
    testTimeout: 60_000,
    pool: "forks",
    // vitest's default is one worker less than the cores, which on two cores is one: a serial run with a core idle
    // (most files also wait on child processes, servers or timers). Both cores on two, vitest's default above that.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      // Not isolated: the files of a worker share one module graph instead of importing src again per file (half the
      // inner loop's time went to those imports). Safe because no module below the CLI keeps state of its own
      // (test/architecture.test.ts "no module-level mutable state below layer 9"); files that mock a module are apart.
      { extends: true, test: { name: "fast", include: ["test/**/*.test.ts"], exclude: [...slow, ...MOCKING], isolate: false } },
      { extends: true, test: { name: "mocks", include: MOCKING } },
      { extends: true, test: { name: "slow", include: slow } },
    ],
  },
});
