import { describe, expect, it } from "vitest";
import { createSseDecoder, looksLikeSse, type SseEvent } from "../../src/framing/create-sse-decoder.ts";

function decode(chunks: readonly string[]): { events: SseEvent[]; comments: string[]; retries: number[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const retries: number[] = [];
  const sse = createSseDecoder({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c), onRetry: (ms) => retries.push(ms) });
  for (const chunk of chunks) sse.feed(chunk);
  sse.end();
  return { events, comments, retries };
}

const stream = [
  "\uFEFF: x-vercel-ai-ui-message-stream: v1",
  "retry: 3000",
  "id: 1",
  "event: agent",
  'data: {"type":"start",',
  'data:"n":1}',
  "",
  "",
  ":keep-alive",
  'data: {"type":"finish"}',
  "",
  "event: ping",
  "",
  "data: [DONE]",
  "",
].join("\n");

describe("createSseDecoder", () => {
  it("joins data lines with \\n, carries the last id, names events, skips comments and data-less events", () => {
    const { events, comments, retries } = decode([stream]);
    expect(events).toEqual([
      { data: '{"type":"start",\n"n":1}', event: "agent", id: "1", line: 5 },
      { data: '{"type":"finish"}', id: "1", line: 10 },
      { data: "[DONE]", id: "1", line: 14 },
    ]);
    expect(comments).toEqual(["x-vercel-ai-ui-message-stream: v1", "keep-alive"]);
    expect(retries).toEqual([3000]);
  });

  it("CRLF and CR line ends read like LF", () => {
    const lf = decode([stream]).events;
    expect(decode([stream.replaceAll("\n", "\r\n")]).events).toEqual(lf);
    expect(decode([stream.replaceAll("\n", "\r")]).events).toEqual(lf);
  });

  it("gives the same events however the text is cut, a CRLF included", () => {
    const crlf = stream.replaceAll("\n", "\r\n");
    const whole = decode([crlf]).events;
    for (let cut = 0; cut <= crlf.length; cut++) {
      expect(decode([crlf.slice(0, cut), crlf.slice(cut)]).events).toEqual(whole);
    }
  });

  it("a last event without its blank line is still handed out at end", () => {
    expect(decode(['data: {"a":1}']).events).toEqual([{ data: '{"a":1}', line: 1 }]);
  });
});

describe("looksLikeSse", () => {
  it.each([
    ["data: {}\n", true],
    [": comment\n", true],
    ["\n\nevent: x\n", true],
    ["id: 7\n", true],
    ['{"data": 1}\n', false],
    ["database: ready\n", false],
    ["", false],
  ])("%j → %s", (head, expected) => {
    expect(looksLikeSse(head)).toBe(expected);
  });
});
