import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/model/events.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { listCaptures } from "../../helpers/shared.ts";
import { positives, streamWith, type SecretCase } from "./_corpus.ts";

describe.skipIf(positives.length === 0)("the redaction stage", () => {
  it.each(positives.map((p) => [`${p.rule}: ${p.about}`, p] as const))(
    "removes %s from every field, raw record and diagnostic",
    (_name, p) => {
      const input = streamWith(p);
      expect(input).toContain(p.token.slice(0, 12)); // the test really places the secret
      const { events, issues } = readAll([input], { dialect: "agentstream", redact: true, includeRaw: true });
      const out = JSON.stringify(events);
      expect(out).not.toContain(p.token);
      expect(JSON.stringify(issues)).not.toContain(p.token);
      expect(out).toContain(`[REDACTED:${p.rule}]`);
      // The redacted stream is self-consistent: each event validates and the sequence checks out.
      expect(events.flatMap((e) => validateEvent(e))).toEqual([]);
      expect(checkSequence(events)).toEqual([]);
      // Deltas add up to the completed message.
      for (const id of ["m1", "m2"]) {
        const deltas = events.filter(
          (e): e is Extract<AgentEvent, { type: "message.delta" }> => e.type === "message.delta" && e.messageId === id,
        );
        const completed = events.find(
          (e): e is Extract<AgentEvent, { type: "message.completed" }> => e.type === "message.completed" && e.messageId === id,
        );
        expect(deltas.map((d) => d.text).join("")).toBe(completed?.text);
        let position = 0;
        for (const d of deltas) {
          expect(d.position).toBe(position);
          position += d.text.length;
        }
      }
      const progress = events.flatMap((e) => (e.type === "tool.progress" && e.toolCallId === "t1" ? [e.output ?? ""] : [])).join("");
      const completed = events.find((e) => e.type === "tool.completed" && e.toolCallId === "t1");
      expect(progress).toBe(completed?.type === "tool.completed" ? completed.output : undefined);
      const inputText = events.flatMap((e) => (e.type === "tool.input.delta" ? [e.text] : [])).join("");
      expect(() => JSON.parse(inputText)).not.toThrow();
      expect(inputText).toContain("[REDACTED:");
    },
  );

  it("leaves the stream untouched when redact is off", () => {
    const p = positives[0] as SecretCase;
    const { events } = readAll([streamWith(p)], { dialect: "agentstream" });
    expect(JSON.stringify(events)).toContain(p.token);
  });
});

/** What a reader sees of a stream: every event but the streamed pieces, and each channel's joined text. */
function content(events: readonly AgentEvent[]): { events: object[]; streamed: Record<string, string> } {
  const streamed: Record<string, string> = {};
  const others: object[] = [];
  for (const event of events) {
    const { seq: _seq, ...rest } = event;
    if (event.type === "message.delta") streamed[`m:${event.messageId}`] = (streamed[`m:${event.messageId}`] ?? "") + event.text;
    else if (event.type === "tool.input.delta") streamed[`i:${event.toolCallId}`] = (streamed[`i:${event.toolCallId}`] ?? "") + event.text;
    else if (event.type === "tool.progress" && event.status === undefined)
      streamed[`o:${event.toolCallId}`] = (streamed[`o:${event.toolCallId}`] ?? "") + (event.output ?? "");
    else others.push(rest);
  }
  return { events: others, streamed };
}

describe("the redaction stage on real captures (none holds a secret)", () => {
  it.each(listCaptures())("%s %s: the same content, only delta boundaries may move", (_dialect, path) => {
    const plain = readFile(path);
    const redacted = readFile(path, { redact: true });
    expect(content(redacted.events)).toEqual(content(plain.events));
    expect(redacted.issues).toEqual(plain.issues);
  });
});
