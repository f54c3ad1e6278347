/**
 * The summary log's tool calls, spooled to disk: the run holds a call only while it is open (flat memory
 * however many calls the run makes), and the list read back is the one the summary builder would have made.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { createSummaryBuilder } from "../../src/summary/summarize.ts";
import { createToolCallSpool } from "../../src/run/_tool-call-spool.ts";
import { tempDir } from "../helpers/temp.ts";

let seq = 0;
const started = (id: string, name = "Bash"): AgentEvent =>
  ({ v: 1, seq: seq++, type: "tool.started", toolCallId: id, name }) as unknown as AgentEvent;
const completed = (id: string, isError = false, name?: string): AgentEvent =>
  ({ v: 1, seq: seq++, type: "tool.completed", toolCallId: id, isError, ...(name === undefined ? {} : { name }) }) as unknown as AgentEvent;

/** The spool's list, as the array `JSON.stringify(list, null, 2)` prints. */
function readBack(events: readonly AgentEvent[]): { text: string; held: number[]; spoolGone: boolean } {
  const dir = tempDir("tool-spool");
  const path = join(dir, ".r.tool-calls.tmp");
  const spool = createToolCallSpool(path);
  const held: number[] = [];
  for (const event of events) {
    spool.add(event);
    held.push(spool.held);
  }
  const out = join(dir, "out.json");
  const fd = openSync(out, "w");
  writeSync(fd, "[");
  const n = spool.writeTo(fd, "  ");
  writeSync(fd, n > 0 ? "\n]" : "]");
  closeSync(fd);
  return { text: readFileSync(out, "utf8"), held, spoolGone: !existsSync(path) };
}

describe("tool-call spool", () => {
  it("holds only the open calls while 20,000 calls complete, and lists them all at the end", () => {
    const events: AgentEvent[] = [];
    for (let i = 0; i < 20_000; i++) events.push(started(`t${i}`), completed(`t${i}`, i % 7 === 0));
    const { text, held, spoolGone } = readBack(events);
    expect(Math.max(...held)).toBe(1);
    const builder = createSummaryBuilder();
    for (const event of events) builder.add(event);
    const expected = builder.result({ lines: 0, records: 0, events: 0, invalid: 0, unknown: 0 } as never, "claude").toolCalls;
    expect(text).toBe(JSON.stringify(expected, null, 2));
    expect(spoolGone).toBe(true);
  });

  it("lists calls in the order they completed, the ones still open last as incomplete; a second completion counts once", () => {
    const events = [started("a"), started("b", "Read"), completed("b", true), completed("c", false, "Grep"), completed("b"), started("b")];
    const list = JSON.parse(readBack(events).text) as unknown[];
    expect(list).toEqual([
      { id: "b", name: "Read", status: "error" },
      { id: "c", name: "Grep", status: "success" },
      { id: "a", name: "Bash", status: "incomplete" },
    ]);
  });

  it("writes an empty list as []", () => {
    expect(readBack([]).text).toBe("[]");
  });
});
