/**
 * Stream repair on every real capture: what a live view prints (the deltas) and what the message
 * finally says (message.completed) agree, so no text is shown twice or lost; and with --no-repair
 * the raw stream is left as the agent sent it.
 */
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/model/events.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { readFile } from "../../helpers/read.ts";
import { hasShared, listCaptures, noteSharedMissing, repoRoot } from "../../helpers/shared.ts";

function messages(events: readonly AgentEvent[]) {
  const streamed = new Map<string, string>();
  const final = new Map<string, string>();
  for (const e of events) {
    if (e.type === "message.delta") streamed.set(e.messageId, (streamed.get(e.messageId) ?? "") + e.text);
    if (e.type === "message.completed") final.set(e.messageId, e.text);
  }
  return { streamed, final };
}

noteSharedMissing();
const sources: [string, string][] = [
  ["example/claude-code-session.ndjson", `${repoRoot}/examples/claude-code-session.ndjson`],
  ...listCaptures().map(([dialect, path]): [string, string] => [`${dialect}/${path.split("/").pop()}`, path]),
];

describe("repair on real captures: each message's text exactly once", () => {
  it.each(sources)("%s", (_name, path) => {
    const { events } = readFile(path);
    const { streamed, final } = messages(events);
    const raw = messages(readFile(path, { repair: false }).events).final;
    const revised = new Set(
      events.flatMap((e) => (e.type === "repair" && e.kind === "snapshot-discontinuity" && e.messageId ? [e.messageId] : [])),
    );
    for (const [id, text] of streamed) {
      if (!final.has(id) || revised.has(id)) continue;
      // The completed text replaces the deltas: the same text, never a prefix repeated. Where the
      // agent's own final text differs from its deltas (cherry-picked lines), it is kept as the agent said it.
      const done = final.get(id);
      if (done !== text) expect(done, `message ${id}`).toBe(raw.get(id));
      expect(done?.includes(`${text}${text}`) && text.length > 3, `message ${id} repeats its text`).toBe(false);
    }
    // Positions and pairing hold after repair.
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
    // Every repair is visible and says what it removed.
    for (const e of events) if (e.type === "repair") expect(e.message.length).toBeGreaterThan(0);
  });
});

describe.skipIf(!hasShared)("--no-repair leaves the raw stream", () => {
  it("the Claude partial-message capture reads the same deltas with and without repair when nothing needed repair", () => {
    const path = listCaptures().find(([, p]) => p.endsWith("meridian_streaming_turn_partial.ndjson"))?.[1] as string;
    const raw = readFile(path, { repair: false }).events.filter((e) => e.type === "message.completed");
    const repaired = readFile(path).events.filter((e) => e.type === "message.completed");
    expect(repaired.map((e) => e.type === "message.completed" && e.text)).toEqual(raw.map((e) => e.type === "message.completed" && e.text));
  });
});
