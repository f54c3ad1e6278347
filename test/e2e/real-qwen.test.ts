/**
 * The real Qwen Code CLI, offline, against our scripted model server (Chat Completions): its live stream
 * (`qwen -p --output-format stream-json --include-partial-messages`) through our `qwen` decoder, and the chat it
 * saved under ~/.qwen/projects through `qwen-session`, `sessions` and `usage`, which must agree with the stream and
 * with what the server reported. The runs are shared by the tests (beforeAll). Without the CLI this file skips with one line.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/model/events.ts";
import { run } from "../../src/cli/run.ts";
import { validateEvent } from "../../src/validation/validate-event.ts";
import { checkSequence } from "../../src/formats/agentstream/rules.ts";
import { usageOf } from "../helpers/model-server/index.ts";
import { agentClisDir, QWEN_MODEL, realClis, runRealQwen, type RealCliRun } from "../helpers/model-server/run-real-cli.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { readAll, readFile } from "../helpers/read.ts";
import { ofType } from "../helpers/events.ts";
import { scenarios, type Scenario } from "./scenarios.ts";

if (realClis.qwen === undefined) {
  console.warn(
    `[agentstream tests] Qwen Code not found in ${agentClisDir}: test/e2e/real-qwen.test.ts is skipped (run scripts/install-agent-clis.sh)`,
  );
}

const chosen = scenarios.filter((scenario) =>
  ["text", "tool call and its result", "thinking or reasoning", "API error (HTTP 400)"].includes(scenario.name),
);

/** The one chat file a run saved. */
function chatOf(run: RealCliRun): string {
  const projects = join(run.home, ".qwen", "projects");
  const files = readdirSync(projects, { recursive: true, encoding: "utf8" }).filter((path) => /[\\/]chats[\\/][^\\/]+\.jsonl$/.test(path));
  expect(files).toHaveLength(1);
  return join(projects, files[0] ?? "");
}

describe.skipIf(realClis.qwen === undefined)("real Qwen Code against the scripted model server", () => {
  const runs = new Map<string, RealCliRun>();
  beforeAll(async () => {
    const done = await Promise.all(chosen.map((scenario) => runRealQwen(scenario.script, "Follow the scripted scenario.")));
    for (const [index, scenario] of chosen.entries()) runs.set(scenario.name, done[index] as RealCliRun);
  }, 120_000);

  describe.each(chosen.map((scenario) => [scenario.name, scenario] as const))("%s", (_name, scenario: Scenario) => {
    it("stream-json: the qwen decoder reads it whole", () => {
      const cliRun = runs.get(scenario.name) as RealCliRun;
      expect(cliRun.timedOut).toBe(false);
      expect(cliRun.exitCode, cliRun.stderr.slice(0, 500)).toBe(scenario.error === undefined ? 0 : 1);
      const { dialect, events, issues } = readAll([cliRun.stdout], { dialect: "auto" });
      expect(dialect).toBe("qwen");
      expect(ofType(events, "unknown")).toEqual([]);
      expect(issues).toEqual([]);
      for (const event of events) expect(validateEvent(event)).toEqual([]);
      expect(checkSequence(events)).toEqual([]);
      const session = ofType(events, "session.completed")[0] as EventOf<"session.completed">;
      if (scenario.error !== undefined) {
        expect(session.status).toBe("error");
        return;
      }
      expect(session.status).toBe("success");
      expect(cliRun.server.turnsUsed).toBe(scenario.script.length);
      expect(session.finalText).toBe(scenario.finalText);
      const used = scenario.script.map(usageOf);
      expect(session.usage?.inputTokens).toBe(used.reduce((sum, usage) => sum + usage.input, 0));
      expect(session.usage?.outputTokens).toBe(used.reduce((sum, usage) => sum + usage.output, 0));
      expect(session.usage?.cacheReadTokens).toBe(used.reduce((sum, usage) => sum + usage.cacheRead, 0));
    });

    it("the saved chat: qwen-session events, and the same answer, tools and tokens as the stream", () => {
      const cliRun = runs.get(scenario.name) as RealCliRun;
      const stored = readFile(chatOf(cliRun), { dialect: "auto" });
      expect(stored.dialect).toBe("qwen-session");
      expect(ofType(stored.events, "unknown")).toEqual([]);
      expect(stored.issues).toEqual([]);
      for (const event of stored.events) expect(validateEvent(event)).toEqual([]);
      expect(checkSequence(stored.events)).toEqual([]);
      const live = readAll([cliRun.stdout], { dialect: "auto" });
      if (scenario.error !== undefined) {
        expect(ofType(stored.events, "error").map((error) => error.message)).toEqual([
          expect.stringContaining(scenario.error.message ?? ""),
        ]);
        return;
      }
      expect(stored.summary.finalText).toBe(scenario.finalText);
      expect(ofType(stored.events, "tool.started").map((tool) => (tool.input as { command?: string }).command)).toEqual(
        (scenario.tools ?? []).map((tool) => tool.command),
      );
      expect(ofType(stored.events, "tool.completed").map((tool) => tool.output)).toEqual(
        (scenario.tools ?? []).map((tool) => expect.stringContaining(tool.output)),
      );
      const reasoning = ofType(stored.events, "message.completed").filter((message) => message.kind === "reasoning");
      expect(reasoning.map((message) => message.text)).toEqual(scenario.reasoning === undefined ? [] : [scenario.reasoning]);
      const { inputTokens, outputTokens, cacheReadTokens } = live.summary.usage ?? {};
      expect(stored.summary.usage).toMatchObject({ inputTokens, outputTokens, cacheReadTokens });
    });

    it("sessions and usage find the chat under HOME, with the summary's tokens", async () => {
      const cliRun = runs.get(scenario.name) as RealCliRun;
      const io = fakeIo({ env: { HOME: cliRun.home, XDG_CACHE_HOME: join(cliRun.home, ".agentstream-cache") } });
      expect(await run(["sessions", "--json", "--agent", "qwen"], io), io.err()).toBe(0);
      const rows = JSON.parse(io.out()) as {
        agent: string;
        project: string;
        status: string;
        models: string[];
        tokens: Record<string, number>;
      }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ agent: "qwen", project: cliRun.cwd, status: scenario.error === undefined ? "completed" : "error" });
      if (scenario.error !== undefined) return;
      expect(rows[0]?.models).toEqual([QWEN_MODEL]);
      const used = scenario.script.map(usageOf);
      const sum = (pick: (usage: (typeof used)[number]) => number): number => used.reduce((total, usage) => total + pick(usage), 0);
      expect(rows[0]?.tokens).toMatchObject({
        input: sum((usage) => usage.input - usage.cacheRead),
        output: sum((usage) => usage.output),
        cacheRead: sum((usage) => usage.cacheRead),
      });
    });
  });
});
