/**
 * The real Claude Code and Codex CLIs, offline, against our scripted model server: for every
 * scenario in scenarios.ts the CLI's stdout goes through our reader (`createEventReader`) with `dialect: "auto"`,
 * and the events must say what the script did (answer, tool calls and their output, reasoning apart,
 * usage as the server reported it, errors as errors), with no unknown records and a valid schema and
 * sequence. This keeps our decoders honest against the pinned CLI versions.
 * The CLIs come from scripts/install-agent-clis.sh; without them this file skips with one line.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent, EventOf } from "../../src/model/events.ts";
import { validateEvent } from "../../src/validation/validate-event.ts";
import { checkSequence } from "../../src/formats/agentstream/rules.ts";
import { usageOf, type Script } from "../helpers/model-server/index.ts";
import {
  agentClisDir,
  canIsolateNetwork,
  realClis,
  runRealClaude,
  runRealCodex,
  runRealOpenCode,
  type RealCliRun,
} from "../helpers/model-server/run-real-cli.ts";
import { readAll } from "../helpers/read.ts";
import { scenarios, type Scenario } from "./scenarios.ts";
import { ofType } from "../helpers/events.ts";

const haveClis = realClis.claude !== undefined && realClis.codex !== undefined;
if (!haveClis) {
  console.warn(
    `[agentstream tests] real agent CLIs not found in ${agentClisDir}: test/e2e/real-clis.test.ts is skipped (run scripts/install-agent-clis.sh)`,
  );
} else if (realClis.opencode === undefined) {
  console.warn("[agentstream tests] OpenCode is not installed (scripts/install-agent-clis.sh): its two real-CLI tests are skipped");
}
if (haveClis && !canIsolateNetwork()) {
  console.warn(
    "[agentstream tests] unshare -n is not available: the real CLIs run WITHOUT network isolation (they are still pointed at 127.0.0.1 only)",
  );
}

interface Cli {
  readonly name: "claude" | "codex";
  run(script: Script, prompt: string): Promise<RealCliRun>;
}
const clis: readonly Cli[] = [
  { name: "claude", run: runRealClaude },
  { name: "codex", run: runRealCodex },
];

/** The command a tool call ran: Codex gives it as `input.command` (wrapped in `bash -lc`); Claude Code streams its input as JSON. */
function commandOf(events: readonly AgentEvent[], started: EventOf<"tool.started">): string {
  const input = started.input as { command?: unknown } | undefined;
  if (typeof input?.command === "string") return input.command;
  const streamed = ofType(events, "tool.input.delta")
    .filter((delta) => delta.toolCallId === started.toolCallId)
    .map((delta) => delta.text)
    .join("");
  const parsed = JSON.parse(streamed) as { command?: unknown };
  return typeof parsed.command === "string" ? parsed.command : "";
}

/**
 * Keeps each run's stdout in the folder AGENTSTREAM_KEEP_STDOUT names (when set), to read when a CLI version
 * changes what it writes; by default nothing is left behind.
 */
function keepStdout(cli: string, scenario: Scenario, run: RealCliRun): void {
  const keep = process.env.AGENTSTREAM_KEEP_STDOUT;
  if (keep === undefined || keep === "") return;
  writeFileSync(join(keep, `agentstream-real-${cli}-${scenario.name.replace(/\W+/g, "-")}.ndjson`), run.stdout);
}

describe.skipIf(!haveClis)("real agent CLIs against the scripted model server", () => {
  describe.each(clis)("$name", (cli) => {
    it.concurrent.each(scenarios.map((scenario) => [scenario.name, scenario] as const))("%s", async (_name, scenario) => {
      const run = await cli.run(scenario.script, "Follow the scripted scenario.");
      keepStdout(cli.name, scenario, run);
      const context = `${cli.name} exited ${run.exitCode}${run.timedOut ? " (timed out)" : ""}; stderr: ${run.stderr.slice(0, 500)}`;
      expect(run.timedOut, context).toBe(false);
      const { dialect, events, issues } = readAll([run.stdout], { dialect: "auto" });

      expect(dialect).toBe(cli.name);
      expect(ofType(events, "unknown")).toEqual([]);
      const largeDeltas = issues.filter((issue) => issue.code === "large-deltas");
      expect(largeDeltas.length).toBeLessThanOrEqual(scenario.largeDeltas === true ? 1 : 0);
      expect(issues.filter((issue) => issue.code !== "large-deltas")).toEqual([]);
      for (const event of events) expect(validateEvent(event), JSON.stringify(event).slice(0, 300)).toEqual([]);
      expect(checkSequence(events)).toEqual([]);
      const completed = ofType(events, "session.completed");
      expect(completed).toHaveLength(1);
      const session = completed[0] as EventOf<"session.completed">;

      if (scenario.error !== undefined) {
        expect(run.exitCode, context).not.toBe(0);
        expect(session.status).toBe("error");
        expect(ofType(events, "error").length).toBeGreaterThan(0);
        if (scenario.error.message !== undefined) expect(session.error).toContain(scenario.error.message);
        return;
      }
      expect(run.exitCode, context).toBe(0);
      expect(session.status).toBe("success");
      // Every turn of the script was asked for, once.
      expect(run.server.turnsUsed).toBe(scenario.script.length);

      const answers = ofType(events, "message.completed").filter((message) => message.role === "assistant" && message.kind === "text");
      expect(answers.at(-1)?.text).toBe(scenario.finalText);
      expect(session.finalText).toBe(scenario.finalText);

      const reasoning = ofType(events, "message.completed").filter((message) => message.kind === "reasoning");
      expect(reasoning.map((message) => message.text)).toEqual(scenario.reasoning === undefined ? [] : [scenario.reasoning]);
      if (scenario.reasoning !== undefined) expect(answers.some((answer) => answer.text.includes(scenario.reasoning ?? ""))).toBe(false);

      const expectedTools = scenario.tools ?? [];
      const started = ofType(events, "tool.started");
      expect(started.map((tool) => commandOf(events, tool))).toEqual(expectedTools.map((tool) => expect.stringContaining(tool.command)));
      expectedTools.forEach((tool, index) => {
        const id = started[index]?.toolCallId;
        const done = ofType(events, "tool.completed").filter((event) => event.toolCallId === id);
        expect(done).toHaveLength(1);
        expect(done[0]?.isError).toBe(false);
        expect(done[0]?.output).toContain(tool.output);
        // The result went back to the model: the request after the tool call carries it.
        const next = run.server.requests.filter((request) => request.turn !== undefined)[index + 1];
        expect(JSON.stringify(next?.body)).toContain(JSON.stringify(tool.output).slice(1, -1));
      });

      // Usage: what the server reported, summed over the turns (side queries report zero).
      const used = scenario.script.map(usageOf);
      const sum = (pick: (usage: (typeof used)[number]) => number): number => used.reduce((total, usage) => total + pick(usage), 0);
      expect(session.usage?.inputTokens).toBe(sum((usage) => usage.input));
      expect(session.usage?.outputTokens).toBe(sum((usage) => usage.output));
      expect(session.usage?.cacheReadTokens).toBe(sum((usage) => usage.cacheRead));
    });
  });
});

/** OpenCode talks to the same Anthropic server; its stream has no final result line, so the checks are fewer. */
describe.skipIf(realClis.opencode === undefined)("real OpenCode against the scripted model server (optional)", () => {
  const chosen = scenarios.filter((scenario) => scenario.name === "text" || scenario.name === "tool call and its result");
  it.concurrent.each(chosen.map((scenario) => [scenario.name, scenario] as const))("%s", async (_name, scenario) => {
    const run = await runRealOpenCode(scenario.script, "Follow the scripted scenario.", { timeoutMs: 55_000 });
    keepStdout("opencode", scenario, run);
    expect(run.timedOut).toBe(false);
    expect(run.exitCode, run.stderr.slice(0, 500)).toBe(0);
    const { dialect, events, issues } = readAll([run.stdout], { dialect: "auto" });
    expect(dialect).toBe("opencode");
    expect(ofType(events, "unknown")).toEqual([]);
    expect(issues).toEqual([]);
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    expect(checkSequence(events)).toEqual([]);
    expect(run.server.turnsUsed).toBe(scenario.script.length);
    const answers = ofType(events, "message.completed").filter((message) => message.role === "assistant" && message.kind === "text");
    expect(answers.at(-1)?.text).toBe(scenario.finalText);
    const started = ofType(events, "tool.started");
    expect(started.map((tool) => commandOf(events, tool))).toEqual((scenario.tools ?? []).map((tool) => tool.command));
    for (const [index, tool] of (scenario.tools ?? []).entries()) {
      const done = ofType(events, "tool.completed").filter((event) => event.toolCallId === started[index]?.toolCallId);
      expect(done[0]?.output).toContain(tool.output);
    }
    // One step per model turn, each with the usage the server reported.
    const steps = ofType(events, "turn.completed");
    expect(steps.map((step) => [step.usage?.inputTokens, step.usage?.outputTokens])).toEqual(
      scenario.script.map(usageOf).map((usage) => [usage.input, usage.output]),
    );
  });
});
