/**
 * The shared file follower's ends (the rest of its behaviour, appends, truncation, rewriting and
 * replacement, is tested through `--follow` in test/cli/follow.test.ts, and the server's use in
 * test/server/server.test.ts): `finished` makes the read after it the last, so everything the
 * writer wrote before saying so is read and nothing waits after; an abort reads what is there, then ends.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FollowChunk, followFile, isFollowRestart } from "../../src/follow/follow-file.ts";
import { tempDir } from "../helpers/temp.ts";

function tempFile(content: string): string {
  const path = join(tempDir("follow-file"), "run.events.ndjson");
  writeFileSync(path, content);
  return path;
}

async function collect(chunks: AsyncIterable<FollowChunk>): Promise<{ text: string; restarts: string[] }> {
  let text = "";
  const restarts: string[] = [];
  for await (const chunk of chunks) {
    if (isFollowRestart(chunk)) restarts.push(chunk.restart.code);
    else text += Buffer.from(chunk).toString("utf8");
  }
  return { text, restarts };
}

describe("followFile", () => {
  it("once the writer is finished, reads what it wrote before saying so and ends", async () => {
    const path = tempFile("a\n");
    let finished = false;
    const stop = new AbortController();
    const reading = collect(followFile(path, { signal: stop.signal, pollMs: 20, finished: () => finished }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    appendFileSync(path, "b\n");
    appendFileSync(path, "c\n");
    finished = true; // the summary is written after the last line: the next look reads b and c, then ends
    expect(await reading).toEqual({ text: "a\nb\nc\n", restarts: [] });
    expect(stop.signal.aborted).toBe(false);
  });

  it("an abort reads what the file holds by then, then ends; a truncated file is said as a restart", async () => {
    const path = tempFile("first line that is long\n");
    const stop = new AbortController();
    const chunks: FollowChunk[] = [];
    const reading = (async () => {
      for await (const chunk of followFile(path, { signal: stop.signal, pollMs: 20 })) chunks.push(chunk);
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    writeFileSync(path, "new\n");
    await new Promise((resolve) => setTimeout(resolve, 200));
    appendFileSync(path, "last\n");
    stop.abort();
    await reading;
    const restarts = chunks.filter(isFollowRestart).map((c) => c.restart.code);
    expect(restarts).toEqual(["file-truncated"]);
    const after = chunks.slice(chunks.findIndex(isFollowRestart) + 1).filter((c): c is Uint8Array => !isFollowRestart(c));
    expect(Buffer.concat(after).toString("utf8")).toBe("new\nlast\n");
  });
});
