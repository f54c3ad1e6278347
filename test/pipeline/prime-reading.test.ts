/** Warming the reading path for a live pipe (a command's live source, `runAgent`): it reads what it means to and changes no result. */
import { describe, expect, it } from "vitest";
import { PRIMING_SAMPLES, primeReadingPath } from "../../src/pipeline/prime-reading.ts";
import { readEvents } from "../../src/pipeline/read-events.ts";

async function eventsOf(text: string, redact = false): Promise<string[]> {
  const out: string[] = [];
  for await (const event of readEvents(text, { redact })) out.push(`${event.seq} ${event.type} ${event.source?.dialect}`);
  return out;
}

describe("primeReadingPath", () => {
  it("may run any number of times, with or without redaction, and leaves what a reader reads as it was", async () => {
    const text =
      '{"type":"thread.started","thread_id":"t"}\n{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hi"}}\n';
    const before = await eventsOf(text);
    primeReadingPath();
    primeReadingPath({ redact: true });
    expect(await eventsOf(text)).toEqual(before);
    expect(before.length).toBeGreaterThan(0);
  });

  it("its samples are the shapes it means to warm: any NDJSON, Claude Code partial messages, Codex", async () => {
    const dialects = [];
    for (const sample of PRIMING_SAMPLES) {
      const events = await eventsOf(sample, true);
      expect(
        events.some((event) => event.includes("message.delta") || event.includes("message.completed") || event.includes("unknown")),
      ).toBe(true);
      dialects.push(events.at(-1)?.split(" ")[2]);
    }
    expect(dialects).toEqual(["json", "claude", "codex"]);
  });
});
