/** One session's shared frames (src/server/session-feed.ts): order, resume points, the memory bound. */
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { SessionFeed } from "../../src/server/session-feed.ts";

const text = (seq: number, size = 10): AgentEvent => ({ v: 1, seq, type: "text", text: "x".repeat(size) }) as AgentEvent;

describe("a session feed", () => {
  it("frames each event once as an SSE event with id: = seq, and finds the resume point after a seq", () => {
    const feed = new SessionFeed("f", { file: null, live: true });
    for (let seq = 0; seq < 5; seq++) feed.push(text(seq));
    expect(feed.frameAt(2)).toBe(`id: 2\ndata: ${JSON.stringify(text(2))}\n\n`);
    expect(feed.indexAfter(2)).toBe(3);
    expect(feed.indexAfter(-1)).toBe(0);
    expect(feed.indexAfter(99)).toBe(5);
    expect(feed.missedAfter(2)).toBe(0);
  });

  it("drops its oldest frames past its bound, and says what a viewer resuming before them missed", () => {
    const frame = `id: 0\ndata: ${JSON.stringify(text(0, 100))}\n\n`.length;
    const feed = new SessionFeed("f", { file: null, live: true, maxBytes: frame * 10 });
    for (let seq = 0; seq < 30; seq++) feed.push(text(seq, 100));
    expect(feed.firstIndex).toBeGreaterThanOrEqual(20);
    expect(feed.endIndex).toBe(30);
    const firstKept = feed.firstIndex;
    expect(feed.frameAt(firstKept)).toMatch(new RegExp(`^id: ${firstKept}\\n`));
    expect(feed.missedAfter(4)).toBe(firstKept - 5);
    expect(feed.missedAfter(firstKept - 1)).toBe(0);
    expect(feed.indexAfter(4)).toBe(firstKept);
  });

  it("holds no more than its bound whatever the stream's length: a dropped block is released at once", () => {
    const frame = `id: 0\ndata: ${JSON.stringify(text(0, 100))}\n\n`.length;
    const maxBytes = frame * 64;
    const feed = new SessionFeed("f", { file: null, live: true, maxBytes });
    // Each event its own block (as when events come one per turn of the event loop): thousands of blocks pass.
    for (let seq = 0; seq < 5000; seq++) {
      feed.push(text(seq, 100));
      expect(feed.endIndex).toBe(seq + 1);
    }
    expect(feed.retainedBytes).toBeLessThanOrEqual(maxBytes);
    expect(feed.retainedBlocks).toBeLessThanOrEqual(64);
    expect(feed.retainedBlocks).toBe(feed.endIndex - feed.firstIndex);
    expect(feed.frameAt(feed.firstIndex)).toMatch(new RegExp(`^id: ${feed.firstIndex}\\n`));
  });

  it("wakes its viewers once per turn for all the events pushed in it, and hands every viewer the same encoded bytes", async () => {
    const feed = new SessionFeed("f", { file: null, live: true });
    const wakes: [number, number] = [0, 0];
    feed.watch({ wake: () => wakes[0]++ });
    feed.watch({ wake: () => wakes[1]++ });
    for (let seq = 0; seq < 100; seq++) feed.push(text(seq));
    expect(wakes).toEqual([0, 0]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(wakes).toEqual([1, 1]);
    const first = feed.sliceFrom(0);
    expect(first.next).toBe(100);
    expect(feed.sliceFrom(0).bytes).toBe(first.bytes); // one encoding, shared: not a copy per viewer
    expect(first.bytes.toString()).toBe(Array.from({ length: 100 }, (_, seq) => feed.frameAt(seq)).join(""));
    expect(feed.sliceFrom(40).bytes.toString()).toMatch(/^id: 40\n/);
  });

  it("keeps the list's facts: running while live and incomplete, then the summary's status", () => {
    const feed = new SessionFeed("f", { file: "x.jsonl", live: true });
    feed.push({ v: 1, seq: 0, type: "session.started", agent: "claude-code", cwd: "/w", time: "2026-01-01T00:00:00Z" } as AgentEvent);
    expect(feed.info()).toMatchObject({
      id: "f",
      agent: "claude-code",
      cwd: "/w",
      start: "2026-01-01T00:00:00Z",
      status: "running",
      live: true,
      file: "x.jsonl",
      events: 1,
    });
    feed.end();
    expect(feed.info()).toMatchObject({ status: "incomplete", live: false });
  });
});
