/**
 * The real Gemini CLI, offline, against our scripted model server (the Gemini API): its live stream
 * (`gemini -p --output-format stream-json`) through `gemini`, and the chat it saved under ~/.gemini/tmp through
 * `gemini-session`, `sessions` and `usage` (real-stores.ts). Without the CLI this file skips with one line.
 */
import { join } from "node:path";
import { describe } from "vitest";
import { GEMINI_MODEL } from "../helpers/model-server/gemini.ts";
import { agentClisDir, realClis, runRealGemini } from "../helpers/model-server/run-real-cli.ts";
import { describeRealStore, filesUnder } from "./real-stores.ts";

if (realClis.gemini === undefined) {
  console.warn(
    `[agentstream tests] Gemini CLI not found in ${agentClisDir}: test/e2e/real-gemini.test.ts is skipped (run scripts/install-agent-clis.sh)`,
  );
}

describe.skipIf(realClis.gemini === undefined)("real Gemini CLI 0.61.0 against the scripted model server", () => {
  describeRealStore({
    title: "Gemini CLI",
    run: runRealGemini,
    streamDialect: "gemini",
    sessionDialect: "gemini-session",
    usageAgent: "gemini",
    model: GEMINI_MODEL,
    sessionFiles: (home) => filesUnder(join(home, ".gemini", "tmp"), /[\\/]chats[\\/]session-[^\\/]+\.jsonl$/),
    storesErrors: false,
    streamsReasoning: false,
    streamsUsage: true,
  });
});
