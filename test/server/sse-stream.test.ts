/**
 * Viewers of a followed log whose feed keeps only its recent frames (src/server/sse-stream.ts): one that
 * joins late, or resumes from an early `Last-Event-ID`, reads what the feed no longer holds from the log
 * itself and gets every event once, in order, while the feed's memory stays under its bound.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCatalog } from "../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../src/server/http-server.ts";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import { httpGet, openSse, type SseFrame } from "../helpers/http.ts";
import { tempDir } from "../helpers/temp.ts";

/** Frames a feed of the log may keep in memory: a small part of the log. */
const FEED_BYTES = 64 * 1024;
const LINES = 3000;

let server: SessionServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Line `i` of a run log in our own format: an answer of about 500 bytes (the log: 30 times the feed's bound). */
const line = (i: number): string =>
  `${JSON.stringify({ v: 1, seq: i, type: "message.completed", messageId: `m${i}`, role: "assistant", kind: "text", text: `answer ${i} `.repeat(40) })}\n`;

/** The stream's last frame: `end`, or `resync` for a viewer dropped. */
const isLast = (frame: SseFrame): boolean => frame.event === "end" || frame.event === "resync";
const ids = (frames: readonly SseFrame[]): string[] => frames.filter((f) => f.event === "message").map((f) => f.id ?? "");

describe("viewers behind a feed's kept frames", () => {
  it("a late viewer and an early resume read the rest from the log: every event once, in order; the feed stays bounded", async () => {
    const dir = tempDir("serve-reread");
    const log = join(dir, "r.events.ndjson");
    writeFileSync(join(dir, "r.raw"), "");
    writeFileSync(log, line(0));
    const catalog = await createCatalog({
      paths: [dir],
      read: { dialect: "auto", redact: true },
      pollMs: 20,
      rescanMs: 0,
      feedBytes: FEED_BYTES,
    });
    const started = await startServer({ catalog, assets: { script: "", css: "" } });
    server = started;
    const auth = { Authorization: `Bearer ${started.token}` };
    const list = async (): Promise<SessionInfo[]> => JSON.parse((await httpGet(started.origin, "/api/sessions", auth)).body);
    const [session] = await list();
    const path = `/api/sessions/${session?.id}/events`;
    const early = openSse(started.origin, path, auth);
    await early.waitFor((frame) => frame.event === "message");

    for (let i = 1; i < LINES; i += 250)
      appendFileSync(log, Array.from({ length: Math.min(250, LINES - i) }, (_, k) => line(i + k)).join(""));
    await early.waitFor((frame) => (frame.event === "message" && frame.id === String(LINES - 1)) || isLast(frame));
    const feed = await catalog.feed(session?.id as string);
    // The feed let go of most of the log: what it keeps is under its bound, not the log's size.
    expect(feed?.firstIndex).toBeGreaterThan(LINES / 2);
    expect(feed?.retainedBytes).toBeLessThanOrEqual(FEED_BYTES);

    const late = openSse(started.origin, path, auth);
    const resumed = openSse(started.origin, path, { ...auth, "Last-Event-ID": "10" });
    writeFileSync(join(dir, "r.summary.json"), "{}\n");
    await Promise.all([early, late, resumed].map((viewer) => viewer.waitFor(isLast)));

    const total = (await list()).find((s) => s.id === session?.id)?.events ?? 0;
    expect(total).toBeGreaterThanOrEqual(LINES);
    const expected = Array.from({ length: total }, (_, i) => String(i));
    expect(ids(early.frames)).toEqual(expected);
    expect(ids(late.frames)).toEqual(expected);
    expect(ids(resumed.frames)).toEqual(expected.slice(11));
    // Nothing was missed, so nothing is reported missing or resynced.
    for (const viewer of [late, resumed]) expect(viewer.frames.filter((f) => f.event === "truncated" || f.event === "resync")).toEqual([]);
  });

  it("a viewer that stops reading for a moment falls behind the kept frames and catches up from the log, with no resync", async () => {
    const dir = tempDir("serve-reread-slow");
    const log = join(dir, "r.events.ndjson");
    writeFileSync(join(dir, "r.raw"), "");
    writeFileSync(log, line(0));
    const catalog = await createCatalog({
      paths: [dir],
      read: { dialect: "auto", redact: true },
      pollMs: 20,
      rescanMs: 0,
      feedBytes: FEED_BYTES,
    });
    const started = await startServer({ catalog, assets: { script: "", css: "" } });
    server = started;
    const auth = { Authorization: `Bearer ${started.token}` };
    const [session] = JSON.parse((await httpGet(started.origin, "/api/sessions", auth)).body) as SessionInfo[];
    const path = `/api/sessions/${session?.id}/events`;
    const slow = openSse(started.origin, path, auth);
    await slow.waitFor((frame) => frame.event === "message");
    const response = await slow.response;
    response.pause(); // its socket fills, the feed goes on without it
    const lines = 4 * LINES;
    for (let i = 1; i < lines; i += 500)
      appendFileSync(log, Array.from({ length: Math.min(500, lines - i) }, (_, k) => line(i + k)).join(""));
    const feed = await catalog.feed(session?.id as string);
    for (let tries = 0; (feed?.lastSeq ?? 0) < lines - 1 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(feed?.firstIndex).toBeGreaterThan(lines / 2);
    response.resume();
    writeFileSync(join(dir, "r.summary.json"), "{}\n");
    await slow.waitFor(isLast);
    expect(ids(slow.frames)).toEqual(Array.from({ length: feed?.endIndex ?? 0 }, (_, i) => String(i)));
    expect(slow.frames.filter((f) => f.event === "resync")).toEqual([]);
  });
});
