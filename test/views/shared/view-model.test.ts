/**
 * The session footer's view-model: the facts every view shows, from the summary of a real capture and
 * from summaries changed one field at a time.
 */
import { describe, expect, it } from "vitest";
import { sessionFooterView } from "../../../src/views/shared/view-model.ts";
import { readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";

const none = { thinkingTokens: undefined, turnMs: undefined };

describe.skipIf(!hasShared)("sessionFooterView on a real capture", () => {
  const { summary } = readFile(sharedPath("fixtures", "claude", "archistrator_success_with_subagent.jsonl"));

  it("carries the summary's facts, formatted once", () => {
    const view = sessionFooterView(summary, none);
    expect(view.status).toBe(summary.status);
    expect(view.agent).toMatch(/^claude/);
    expect(view.tokens).toMatch(/^\d+ input, \d+ output/);
    expect(view.cost).toMatch(/^\$\d+\.\d{2,}$/);
    expect(view.subagents).toBe(summary.subagents);
    expect(view.toolCalls).toMatch(new RegExp(`^${summary.toolCalls.length}\\b`));
  });

  it("estimates thinking only when no reasoning tokens were reported", () => {
    const noReasoning = { ...summary, usage: { ...summary.usage, reasoningTokens: null } };
    expect(sessionFooterView(noReasoning, { thinkingTokens: 1200, turnMs: undefined }).thinking).toBe("~1200 tokens (estimated)");
    const reasoning = { ...summary, usage: { ...summary.usage, reasoningTokens: 5 } };
    expect(sessionFooterView(reasoning, { thinkingTokens: 1200, turnMs: undefined }).thinking).toBeUndefined();
  });

  it("takes the turns' time when the session reported no duration", () => {
    expect(sessionFooterView({ ...summary, durationMs: null }, { thinkingTokens: undefined, turnMs: 18_700 }).duration).toBe("18.7s");
    expect(sessionFooterView({ ...summary, durationMs: 850 }, { thinkingTokens: undefined, turnMs: 18_700 }).duration).toBe("850ms");
  });

  it("leaves out what the agent did not say", () => {
    const bare = { ...summary, agent: null, agentVersion: null, model: null, sessionId: null, error: null, costUsd: null, turns: null };
    const empty = {
      ...bare,
      usage: { inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
    };
    const view = sessionFooterView(empty, none);
    expect([view.agent, view.model, view.sessionId, view.error, view.cost, view.turns, view.tokens]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
