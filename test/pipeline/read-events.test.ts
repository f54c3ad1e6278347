import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { AgentEventStream, readEvents } from "../../src/pipeline/read-events.ts";
import type { AgentEvent } from "../../src/model/events.ts";

const sample = '{"a":1}\nbanner\n{"b":2}\n';

async function collect(iterable: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

describe("readEvents adapters", () => {
  it.each([
    ["a string", () => sample],
    ["bytes", () => new TextEncoder().encode(sample)],
    ["a Node stream", () => Readable.from([Buffer.from(sample.slice(0, 5)), Buffer.from(sample.slice(5))])],
    [
      "an async iterable of strings",
      () =>
        (async function* () {
          yield sample.slice(0, 9);
          yield sample.slice(9);
        })(),
    ],
    ["a sync iterable", () => [sample]],
    [
      "a Web ReadableStream",
      () =>
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode(sample));
            c.close();
          },
        }),
    ],
  ])("reads %s", async (_name, make) => {
    const events = await collect(readEvents(make() as never, { dialect: "json" }));
    expect(events.map((e) => e.type)).toEqual(["unknown", "text", "unknown"]);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it("returns the reader's summary as the generator's return value", async () => {
    const it = readEvents(sample, { dialect: "json" });
    let r = await it.next();
    while (!r.done) r = await it.next();
    expect(r.value.dialect).toBe("json");
    expect(r.value.stats.unknown).toBe(2);
  });

  it("hands an event out before the source ends (no buffering to EOF)", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* slow() {
      yield '{"first":true}\n';
      await gate;
      yield '{"second":true}\n';
    }
    const it = readEvents(slow(), { dialect: "json" });
    const first = await it.next();
    expect(first.done).toBe(false);
    release();
    expect((await it.next()).done).toBe(false);
  });

  it("breaking out early releases the source", async () => {
    let finalized = false;
    async function* source() {
      try {
        for (let i = 0; i < 100; i++) yield `{"i":${i}}\n`;
      } finally {
        finalized = true;
      }
    }
    for await (const _ of readEvents(source(), { dialect: "json" })) break;
    expect(finalized).toBe(true);
  });

  it("AgentEventStream is a Web TransformStream from text or bytes to events", async () => {
    const input = new ReadableStream<string>({
      start(c) {
        c.enqueue(sample.slice(0, 4));
        c.enqueue(sample.slice(4));
        c.close();
      },
    });
    const events = await collect(input.pipeThrough(new AgentEventStream({ dialect: "json" })) as unknown as AsyncIterable<AgentEvent>);
    expect(events).toHaveLength(3);
  });

  it("rejects a source it cannot read with a typed error", async () => {
    await expect(collect(readEvents(42 as never))).rejects.toThrow(/readEvents needs a string/);
  });
});
