/**
 * The followed-file source (`--follow`) on real files that the test appends to, truncates, rewrites
 * and replaces while it is read: every byte once, in order, and a restart (with its issue) wherever
 * the file started again, never old and new bytes joined. Run with fs.watch and with the poll alone.
 */
import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { followSource } from "../../src/cli/sources/follow.ts";
import { isRestart, type SourceChunk } from "../../src/cli/sources/source.ts";
import { readEvents } from "../../src/pipeline/read-events.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

/** Reads the source in the background; `text()` is what arrived since the last restart, `restarts` the issue codes. */
function follow(path: string, options: { watch: boolean }) {
  const stop = new AbortController();
  const generations: Buffer[][] = [[]];
  const restarts: string[] = [];
  const source = followSource(path, { signal: stop.signal, pollMs: options.watch ? 500 : 20, watch: options.watch });
  const done = (async () => {
    for await (const chunk of source.chunks() as AsyncIterable<SourceChunk>) {
      if (isRestart(chunk)) {
        restarts.push(chunk.restart.code);
        generations.push([]);
      } else generations.at(-1)?.push(Buffer.from(chunk));
    }
  })();
  const text = (generation = generations.length - 1): string => Buffer.concat(generations[generation] ?? []).toString("utf8");
  return {
    restarts,
    text,
    async until(what: string, condition: () => boolean): Promise<void> {
      for (let waited = 0; !condition(); waited += 10) {
        if (waited > 15_000) throw new Error(`the followed file never showed ${what}; read: ${JSON.stringify(text())}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async stop(): Promise<void> {
      stop.abort();
      await done;
    },
  };
}

function tempFile(content: string | Buffer = ""): string {
  const path = join(tempDir("follow"), "agent.jsonl");
  writeFileSync(path, content);
  return path;
}

for (const watch of [true, false]) {
  describe(`followSource (${watch ? "fs.watch and the poll" : "the poll alone"})`, () => {
    it("reads what is there, then every appended piece in order, a line split anywhere (inside a UTF-8 character too)", async () => {
      const path = tempFile('{"type":"a"}\n');
      const followed = follow(path, { watch });
      await followed.until("the first line", () => followed.text() === '{"type":"a"}\n');
      const line = Buffer.from('{"type":"b","text":"Xin chào 🙂"}\n');
      const cuts = [0, 5, 21, 22, line.length]; // 21 and 22 fall inside the emoji's four bytes
      for (let i = 1; i < cuts.length; i++) {
        appendFileSync(path, line.subarray(cuts[i - 1], cuts[i]));
        await followed.until(`piece ${i}`, () => followed.text().length > 0 && Buffer.byteLength(followed.text()) === 13 + (cuts[i] ?? 0));
      }
      await followed.stop();
      expect(followed.text()).toBe(`{"type":"a"}\n${line.toString()}`);
      expect(followed.restarts).toEqual([]);
    });

    it("reports a truncated file and reads it again from its start", async () => {
      const path = tempFile('{"type":"old","n":1}\n{"type":"old","n":2}\n');
      const followed = follow(path, { watch });
      await followed.until("the old lines", () => followed.text().endsWith('"n":2}\n'));
      truncateSync(path, 0);
      appendFileSync(path, '{"type":"new"}\n');
      await followed.until("the new line", () => followed.text() === '{"type":"new"}\n');
      await followed.stop();
      expect(followed.restarts).toEqual(["file-truncated"]);
      expect(followed.text(0)).toBe('{"type":"old","n":1}\n{"type":"old","n":2}\n');
    });

    it("notices a file written again from its start past where it was read (same size or longer), not only one that shrank", async () => {
      const path = tempFile('{"type":"old"}\n');
      const followed = follow(path, { watch });
      await followed.until("the old line", () => followed.text() === '{"type":"old"}\n');
      // One write replaces the content with a longer one: the size never drops below what was read.
      writeFileSync(path, '{"type":"new","longer":true}\n');
      await followed.until("the new content", () => followed.text() === '{"type":"new","longer":true}\n');
      await followed.stop();
      expect(followed.restarts).toEqual(["file-truncated"]);
    });

    it("reads a replaced file (renamed away, a new one in its place) to its end, then the new one from its start", async () => {
      const path = tempFile('{"type":"old"}\n');
      const followed = follow(path, { watch });
      await followed.until("the old line", () => followed.text() === '{"type":"old"}\n');
      renameSync(path, `${path}.1`);
      appendFileSync(`${path}.1`, '{"type":"old","last":true}\n'); // the writer still had it open
      writeFileSync(path, '{"type":"new"}\n');
      await followed.until("the new file", () => followed.restarts.length === 1 && followed.text() === '{"type":"new"}\n');
      appendFileSync(path, '{"type":"new","n":2}\n');
      await followed.until("the appended line", () => followed.text().endsWith('"n":2}\n'));
      await followed.stop();
      expect(followed.restarts).toEqual(["file-replaced"]);
      expect(followed.text(0)).toBe('{"type":"old"}\n{"type":"old","last":true}\n');
    });

    it("waits while the path is gone, and reads the file that comes back", async () => {
      const path = tempFile('{"type":"old"}\n');
      const followed = follow(path, { watch });
      await followed.until("the old line", () => followed.text() === '{"type":"old"}\n');
      renameSync(path, `${path}.gone`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      writeFileSync(path, '{"type":"back"}\n');
      await followed.until("the new file", () => followed.text() === '{"type":"back"}\n');
      await followed.stop();
      expect(followed.restarts).toEqual(["file-replaced"]);
    });
  });
}

describe("followSource", () => {
  it("reads what was written by the time it is stopped, and a partial last line stays as it is", async () => {
    const path = tempFile('{"type":"a"}\n{"type":"b"');
    const followed = follow(path, { watch: true });
    await followed.until("both", () => followed.text().endsWith('"b"'));
    appendFileSync(path, "}\n");
    await followed.stop();
    expect(followed.text()).toBe('{"type":"a"}\n{"type":"b"}\n');
  });

  it("fails like any unreadable file when the file does not exist", async () => {
    const source = followSource(join(tmpdir(), "agentstream-follow-no-such-file.jsonl"), { signal: new AbortController().signal });
    await expect(async () => {
      for await (const _ of source.chunks());
    }).rejects.toThrow(/ENOENT/);
  });

  it.skipIf(!hasShared)("gives the events of a real capture appended in pieces as reading the whole file does", async () => {
    const capture = readFileSync(sharedPath("fixtures/claude/ralph_partial_bash_success_2.1.218.jsonl"));
    const path = tempFile();
    const stop = new AbortController();
    const source = followSource(path, { signal: stop.signal, pollMs: 20 });
    const chunks = source.chunks() as AsyncIterable<Uint8Array>;
    const events = (async () => {
      const out: unknown[] = [];
      for await (const event of readEvents(chunks, { dialect: "claude" })) out.push(event);
      return out;
    })();
    // Pieces of 1 to 997 bytes, cutting lines (and records) anywhere.
    for (let at = 0, size = 1; at < capture.length; at += size, size = (size * 7 + 3) % 997 || 1) {
      appendFileSync(path, capture.subarray(at, at + size));
      if (size % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop.abort();
    const whole: unknown[] = [];
    for await (const event of readEvents([capture], { dialect: "claude" })) whole.push(event);
    expect(await events).toEqual(whole);
    expect(whole.length).toBeGreaterThan(40);
  });
});
