/**
 * The real Qwen Code CLI, offline, against our scripted model server (Chat Completions): its live stream
 * (`qwen -p --output-format stream-json --include-partial-messages`) through `qwen`, and the chat it saved under
 * ~/.qwen/projects through `qwen-session`, `sessions` and `usage` (real-stores.ts). Without the CLI this file skips
 * with one line.
 */
import { join } from "node:path";
import { describe } from "vitest";
import { agentClisDir, QWEN_MODEL, realClis, runRealQwen } from "../helpers/model-server/run-real-cli.ts";
import { describeRealStore, filesUnder } from "./real-stores.ts";

if (realClis.qwen === undefined) {
  console.warn(
    `[agentstream tests] Qwen Code not found in ${agentClisDir}: test/e2e/real-qwen.test.ts is skipped (run scripts/install-agent-clis.sh)`,
  );
}

describe.skipIf(realClis.qwen === undefined)("real Qwen Code 0.24.4 against the scripted model server", () => {
  describeRealStore({
    title: "Qwen Code",
    run: runRealQwen,
    streamDialect: "qwen",
    sessionDialect: "qwen-session",
    usageAgent: "qwen",
    model: QWEN_MODEL,
    sessionFiles: (home) => filesUnder(join(home, ".qwen", "projects"), /[\\/]chats[\\/][^\\/]+\.jsonl$/),
    storesErrors: true,
    streamsReasoning: true,
    streamsUsage: true,
  });
});
