/**
 * What test/e2e/real-qwen.test.ts, real-gemini.test.ts and real-copilot.test.ts check of a real CLI run offline against the scripted model
 * server: its live stream through our stream dialect, and the session it saved under its HOME through our session
 * dialect, `sessions` and `usage`, which must agree with the stream and with what the server reported.
 * The runs are made once per file (beforeAll) and shared by the tests.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/model/events.ts";
import { run } from "../../src/cli/run.ts";
import { validateEvent } from "../../src/validation/validate-event.ts";
import { checkSequence } from "../../src/formats/agentstream/rules.ts";
import { type Script, usageOf } from "../helpers/model-server/index.ts";
import type { RealCliRun } from "../helpers/model-server/run-real-cli.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { readAll, readFile } from "../helpers/read.ts";
import { ofType } from "../helpers/events.ts";
import { scenarios, type Scenario } from "./scenarios.ts";

export interface RealStoreCase {
  readonly title: string;
  run(script: Script, prompt: string): Promise<RealCliRun>;
  readonly streamDialect: string;
  readonly sessionDialect: string;
  /** The `--agent` name of `sessions` and `usage`. */
  readonly usageAgent: string;
  readonly model: string;
  /** The session files under the run's HOME (one expected per run). */
  sessionFiles(home: string): string[];
  /** Whether the saved session records an API error (Qwen Code does; Gemini CLI keeps it in the stream only). */
  readonly storesErrors: boolean;
  /** Whether the live stream carries reasoning (Gemini CLI's stream-json leaves thoughts out; its chat keeps them). */
  readonly streamsReasoning: boolean;
  /** Whether the live stream carries token counts (Copilot CLI's JSON output has none: its session file has them). */
  readonly streamsUsage: boolean;
}

const CHOSEN = ["text", "tool call and its result", "thinking or reasoning", "API error (HTTP 400)"];

/** Files under `root` whose path (relative to it) matches `pattern`. */
export function filesUnder(root: string, pattern: RegExp): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((path) => pattern.test(path))
    .map((path) => join(root, path));
}

export function describeRealStore(cli: RealStoreCase): void {
  const chosen = scenarios.filter((scenario) => CHOSEN.includes(scenario.name));
  const runs = new Map<string, RealCliRun>();
  beforeAll(async () => {
    const done = await Promise.all(chosen.map((scenario) => cli.run(scenario.script, "Follow the scripted scenario.")));
    for (const [index, scenario] of chosen.entries()) runs.set(scenario.name, done[index] as RealCliRun);
  }, 150_000);

  describe.each(chosen.map((scenario) => [scenario.name, scenario] as const))("%s", (_name, scenario: Scenario) => {
    const used = scenario.script.map(usageOf);
    const sum = (pick: (usage: (typeof used)[number]) => number): number => used.reduce((total, usage) => total + pick(usage), 0);

    it(`the live stream: ${cli.streamDialect} reads it whole`, () => {
      const cliRun = runs.get(scenario.name) as RealCliRun;
      expect(cliRun.timedOut).toBe(false);
      if (scenario.error === undefined) expect(cliRun.exitCode, cliRun.stderr.slice(0, 500)).toBe(0);
      else expect(cliRun.exitCode).not.toBe(0);
      const { dialect, events, issues, summary } = readAll([cliRun.stdout], { dialect: "auto" });
      expect(dialect).toBe(cli.streamDialect);
      expect(ofType(events, "unknown")).toEqual([]);
      expect(issues).toEqual([]);
      for (const event of events) expect(validateEvent(event)).toEqual([]);
      expect(checkSequence(events)).toEqual([]);
      const session = ofType(events, "session.completed")[0] as EventOf<"session.completed">;
      if (scenario.error !== undefined) {
        expect(session.status).toBe("error");
        if (scenario.error.message !== undefined) expect(JSON.stringify(events)).toContain(scenario.error.message);
        return;
      }
      expect(session.status).toBe("success");
      expect(cliRun.server.turnsUsed).toBe(scenario.script.length);
      // The last answer (Gemini CLI's result line carries no text: the summary takes the last assistant message).
      expect(summary.finalText).toBe(scenario.finalText);
      const reasoning = ofType(events, "message.completed").filter((message) => message.kind === "reasoning");
      expect(reasoning.map((message) => message.text)).toEqual(
        scenario.reasoning !== undefined && cli.streamsReasoning ? [scenario.reasoning] : [],
      );
      if (!cli.streamsUsage) return;
      expect(summary.usage).toMatchObject({
        inputTokens: sum((usage) => usage.input),
        outputTokens: sum((usage) => usage.output),
        cacheReadTokens: sum((usage) => usage.cacheRead),
      });
    });

    it(`the saved session: ${cli.sessionDialect}, with the answer, tools, reasoning and tokens of the run`, () => {
      const cliRun = runs.get(scenario.name) as RealCliRun;
      const files = cli.sessionFiles(cliRun.home);
      expect(files).toHaveLength(1);
      const stored = readFile(files[0] ?? "", { dialect: "auto" });
      expect(stored.dialect).toBe(cli.sessionDialect);
      expect(ofType(stored.events, "unknown")).toEqual([]);
      expect(stored.issues).toEqual([]);
      for (const event of stored.events) expect(validateEvent(event)).toEqual([]);
      expect(checkSequence(stored.events)).toEqual([]);
      const prompts = ofType(stored.events, "message.completed").filter((message) => message.role === "user");
      expect(prompts.map((message) => message.text)).toEqual(["Follow the scripted scenario."]);
      if (scenario.error !== undefined) {
        const errors = ofType(stored.events, "error").map((error) => error.message);
        expect(errors).toEqual(cli.storesErrors ? [expect.stringContaining(scenario.error.message ?? "")] : []);
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
      expect(stored.summary.usage).toMatchObject({
        inputTokens: sum((usage) => usage.input),
        outputTokens: sum((usage) => usage.output),
        cacheReadTokens: sum((usage) => usage.cacheRead),
      });
    });

    it("sessions finds it under HOME: its project, status, model and tokens", async () => {
      const cliRun = runs.get(scenario.name) as RealCliRun;
      const io = fakeIo({ env: { HOME: cliRun.home, XDG_CACHE_HOME: join(cliRun.home, ".agentstream-cache") } });
      expect(await run(["sessions", "--json", "--agent", cli.usageAgent], io), io.err()).toBe(0);
      const rows = JSON.parse(io.out()) as {
        agent: string;
        project: string;
        status: string;
        models: string[];
        tokens: Record<string, number>;
      }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ agent: cli.usageAgent, project: cliRun.cwd });
      if (scenario.error !== undefined) {
        expect(rows[0]?.status).toBe(cli.storesErrors ? "error" : "unknown");
        return;
      }
      expect(rows[0]?.status).toBe("completed");
      expect(rows[0]?.models).toEqual([cli.model]);
      // `usage`'s meaning: input without the cached part (docs/usage.md).
      expect(rows[0]?.tokens).toMatchObject({
        input: sum((usage) => usage.input - usage.cacheRead),
        output: sum((usage) => usage.output),
        cacheRead: sum((usage) => usage.cacheRead),
      });
    });
  });
}
