/** Which subject each event goes to, and its message id. */
import { describe, expect, it } from "vitest";
import { createSessionRouter } from "../../src/fleet/session-router.ts";
import type { SpooledMessage } from "../../src/fleet/spool.ts";
import { build } from "../helpers/events.ts";

const claude = { dialect: "claude" };

function route(drafts: readonly object[], options: { agent?: string; fallbackSession?: () => string } = {}): SpooledMessage[] {
  const out: SpooledMessage[] = [];
  const router = createSessionRouter({ host: "box", ...options }, (m) => out.push(m));
  for (const event of build(drafts)) router.event(event);
  router.end();
  return out;
}

describe("session router", () => {
  it("events before the session names itself wait, then go first to its subject, in order", () => {
    const out = route([
      { type: "text", text: "banner", source: claude },
      { type: "session.started", sessionId: "S1", agent: "claude-code", source: claude },
      { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "hi", sessionId: "S1", source: claude },
    ]);
    expect(out.map((m) => m.subject)).toEqual(Array(3).fill("agentstream.box.claude.S1"));
    expect(out.map((m) => m.id)).toEqual(["box.claude.S1:0", "box.claude.S1:1", "box.claude.S1:2"]);
    expect(JSON.parse(out[0]?.data ?? "").text).toBe("banner");
  });

  it("a subagent stays on its parent's subject; a second root session in the same input gets its own", () => {
    const out = route([
      { type: "session.started", sessionId: "P", source: claude },
      { type: "session.started", sessionId: "child", parentSessionId: "P", source: claude },
      { type: "text", text: "x", sessionId: "child", source: claude },
      { type: "session.completed", status: "success", sessionId: "P", source: claude },
      { type: "session.started", sessionId: "Q", source: { dialect: "codex" } },
    ]);
    expect(out.map((m) => m.subject.split(".").at(-1))).toEqual(["P", "P", "P", "P", "Q"]);
    expect(out[4]?.subject).toBe("agentstream.box.codex.Q");
  });

  it("a stream that never names its session: the fallback name, else a stable hash of its start", () => {
    const events = [{ type: "text", text: "aider says hi", source: { dialect: "aider" } }];
    expect(route(events, { fallbackSession: () => "run-1" })[0]?.subject).toBe("agentstream.box.aider.run-1");
    const a = route(events)[0]?.subject;
    expect(a).toMatch(/^agentstream\.box\.aider\.anon-[0-9a-f]{8}$/);
    expect(route(events)[0]?.subject).toBe(a); // publishing the same input twice: the same ids, stored once
    expect(route([{ type: "heartbeat", idleMs: 1 }], { agent: "gemini", fallbackSession: () => "r" })[0]?.subject).toBe(
      "agentstream.box.gemini.r",
    );
  });
});
