/** Warming the reading path for a live pipe is the command's (once, before its first source), and changes no result. */
import { describe, expect, it } from "vitest";
import { primeReadingPath } from "../../src/cli/prime-reading.ts";
import { readEvents } from "../../src/pipeline/read-events.ts";

async function eventsOf(text: string): Promise<string[]> {
  const out: string[] = [];
  for await (const event of readEvents(text)) out.push(`${event.seq} ${event.type}`);
  return out;
}

describe("primeReadingPath", () => {
  it("may run any number of times and leaves what a reader reads as it was", async () => {
    const text =
      '{"type":"thread.started","thread_id":"t"}\n{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hi"}}\n';
    const before = await eventsOf(text);
    primeReadingPath();
    primeReadingPath();
    expect(await eventsOf(text)).toEqual(before);
    expect(before.length).toBeGreaterThan(0);
  });
});
