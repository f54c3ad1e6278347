/**
 * The real GitHub Copilot CLI, offline (`COPILOT_OFFLINE`, its BYOK provider at our scripted model server over Chat
 * Completions): its JSON output (`copilot -p --output-format json`) and the session file it saved under
 * ~/.copilot/session-state, both through `copilot`, and through `sessions` and `usage` (real-stores.ts). Without the CLI
 * this file skips with one line.
 */
import { join } from "node:path";
import { describe } from "vitest";
import { agentClisDir, COPILOT_MODEL, realClis, runRealCopilot } from "../helpers/model-server/run-real-cli.ts";
import { describeRealStore, filesUnder } from "./real-stores.ts";

if (realClis.copilot === undefined) {
  console.warn(
    `[agentstream tests] Copilot CLI not found in ${agentClisDir}: test/e2e/real-copilot.test.ts is skipped (run scripts/install-agent-clis.sh)`,
  );
}

describe.skipIf(realClis.copilot === undefined)("real GitHub Copilot CLI 1.0.102 against the scripted model server", () => {
  describeRealStore({
    title: "Copilot CLI",
    run: runRealCopilot,
    streamDialect: "copilot",
    sessionDialect: "copilot",
    usageAgent: "copilot",
    model: COPILOT_MODEL,
    sessionFiles: (home) => filesUnder(join(home, ".copilot", "session-state"), /[\\/]events\.jsonl$/),
    storesErrors: true,
    streamsReasoning: true,
    streamsUsage: false,
  });
});
