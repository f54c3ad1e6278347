// Several sessions in one stream (`cat claude.jsonl codex.jsonl gemini.jsonl | ...`): each is found at its
// boundary, detected afresh, and the previous one is closed there.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { createEventReader, type SessionBoundary } from "../../src/pipeline/create-event-reader.ts";
import { validateEvent } from "../../src/validation/validate-event.ts";
import { checkSequence } from "../../src/formats/agentstream/rules.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { hasShared, listCaptures, repoRoot, sharedPath } from "../helpers/shared.ts";

const fixtures = join(repoRoot, "test/fixtures/sessions");
const capture = (path: string): Uint8Array => readFileSync(sharedPath("fixtures", path));

const claude = "claude/archistrator_success_with_tools.jsonl";
const claudeFailure = "claude/archistrator_failure.jsonl";
const claudeNoInit = "claude/ralph_partial_bash_success_2.1.218.jsonl";
const codex = "codex/agentcmd_exec_json_stream-output-1.jsonl";
const gemini = "gemini/agentcmd_say_hello.jsonl";
const opencode = "opencode/sortie_doc_v1.14.25_simple_turn.jsonl";
const opencode2 = "opencode/takopi_opencode_stream_success.jsonl";
// A capture cut at its start: no opening record, so the Claude decoder's "nothing understood" decides.
const codexFragment = "codex/legacy_exec_json_vibe-kanban_mcp_tool_call.jsonl";

function read(chunks: readonly Uint8Array[], dialect = "auto") {
  const events: AgentEvent[] = [];
  const boundaries: SessionBoundary[] = [];
  const reader = createEventReader({ onEvent: (e) => events.push(e), onSessionBoundary: (b) => boundaries.push(b) }, { dialect });
  for (const chunk of chunks) reader.feed(chunk);
  reader.end();
  return { events, boundaries, reader };
}

function lineCount(bytes: Uint8Array): number {
  return new TextDecoder()
    .decode(bytes)
    .split("\n")
    .filter((l) => l !== "").length;
}

describe.skipIf(!hasShared)("concatenated real captures", () => {
  it.each([
    [[claude, codex, gemini]],
    [[gemini, codex, claude]],
    [[codex, claude, opencode]],
    [[opencode, gemini, codex]],
    [[claude, claudeFailure]],
    [[claudeNoInit, claude]],
    [[opencode, opencode2]],
    [[claude, codexFragment]],
    [[gemini, codexFragment]],
    // Claude-style streams from other CLIs: each init is detected afresh, not taken for Claude's.
    [
      [
        "cursor/cursorhack_2026.01.28_subagent_sleep.jsonl",
        claude,
        "qwen/plannotator_0.25.0_partial_cherrypicked_lines.jsonl",
        "amp/unison_amp_0.0.1775837683_stream_json_2plus2.jsonl",
      ],
    ],
  ])("%j: one session per capture, each in its own dialect, boundaries at each capture's first line", (paths) => {
    const parts = paths.map(capture);
    const { events, boundaries, reader } = read(parts);
    const dialects = paths.map((p) => read([capture(p)]).reader.dialect);
    expect(reader.sessions).toBe(paths.length);
    expect(boundaries.map((b) => b.dialect)).toEqual(dialects.slice(1));
    expect(boundaries.map((b) => b.previousDialect)).toEqual(dialects.slice(0, -1));
    const starts: number[] = [];
    let line = 0;
    for (const part of parts.slice(0, -1)) {
      line += lineCount(part);
      starts.push(line + 1);
    }
    expect(boundaries.map((b) => b.line)).toEqual(starts);
    // Each session decodes exactly as its capture does alone (apart from seq, which runs on).
    const alone = paths.flatMap((p) => read([capture(p)]).events.map((e) => ({ ...e, seq: 0, source: e.source?.dialect })));
    expect(events.map((e) => ({ ...e, seq: 0, source: e.source?.dialect }))).toEqual(alone);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    for (const event of events) expect(validateEvent(event)).toEqual([]);
  });

  it("the counts before each boundary are those of the captures before it", () => {
    const parts = [claude, codex, gemini].map(capture);
    const { boundaries } = read(parts);
    expect(boundaries.map((b) => b.statsBefore.total)).toEqual([
      lineCount(parts[0] as Uint8Array),
      lineCount(parts[0] as Uint8Array) + lineCount(parts[1] as Uint8Array),
    ]);
  });

  it("counts sessions without an onSessionBoundary callback too", () => {
    const reader = createEventReader({ onEvent: () => {} });
    reader.feed(capture(claude));
    reader.feed(capture(codex));
    reader.end();
    expect(reader.sessions).toBe(2);
  });

  it("the same capture twice: Claude's second run starts after the first one's result", () => {
    const { boundaries, reader } = read([capture(claude), capture(claude)]);
    expect(reader.sessions).toBe(2);
    expect(boundaries).toHaveLength(1);
  });

  it("no real capture is split on its own (no boundary inside any single capture)", () => {
    for (const [, path] of listCaptures()) {
      if (path.endsWith(".md") || path.endsWith(".txt")) continue;
      expect({ path, sessions: read([readFileSync(path)]).reader.sessions }).toEqual({ path, sessions: 1 });
    }
  });
});

describe("same-dialect sessions back to back (synthetic)", () => {
  it("closes the first session's open tool call at the boundary, before the second session starts", () => {
    const { events, boundaries } = read([readFileSync(join(fixtures, "claude-open-tool-then-second-session.ndjson"))]);
    expect(boundaries).toEqual([expect.objectContaining({ session: 1, dialect: "claude", previousDialect: "claude", line: 3 })]);
    const closed = events.findIndex((e) => e.type === "tool.completed" && e.toolCallId === "toolu_A1");
    const second = events.findIndex((e) => e.type === "session.started" && e.sessionId === "bbbbbbbb-0000-4000-8000-000000000002");
    expect(closed).toBeGreaterThan(-1);
    expect(closed).toBeLessThan(second);
    expect(events[closed]).toMatchObject({ isError: true, sessionId: "aaaaaaaa-0000-4000-8000-000000000001" });
    expect(events.slice(second).every((e) => e.sessionId === "bbbbbbbb-0000-4000-8000-000000000002")).toBe(true);
    expect(checkSequence(events).filter((i) => i.severity !== "info")).toEqual([]);
  });

  it("an init with the same session id starts a new session only after that session's result", () => {
    const { boundaries } = read([readFileSync(join(fixtures, "claude-same-id-init-after-result.ndjson"))]);
    expect(boundaries.map((b) => b.line)).toEqual([4]);
  });

  it("a second init with the same id before any result continues the session (background agent)", () => {
    const { reader } = read([readFileSync(fixturePath("claude", "background-agent-second-init-two-results.ndjson"))]);
    expect(reader.sessions).toBe(1);
  });

  it("with a dialect given, another dialect's records do not start a session", () => {
    if (!hasShared) return;
    const { reader } = read([capture(claude), capture(codex)], "claude");
    expect(reader.sessions).toBe(1);
  });
});
