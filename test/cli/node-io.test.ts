// The real CliIo's file reading: a regular file is read synchronously in chunks, a pipe as a stream;
// either way every byte arrives, in order, whatever the file's size.
import { execFileSync, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processIo } from "../../src/cli/node-io.ts";
import { tempDir } from "../helpers/temp.ts";

const dir = tempDir("node-io");

async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<{ bytes: Buffer; count: number }> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return { bytes: Buffer.concat(parts), count: parts.length };
}

describe("processIo().openFile", () => {
  it("reads a regular file whole, past several turns of the event loop (5 MiB and a tail)", async () => {
    const content = Buffer.alloc(5 * 1024 * 1024 + 123);
    for (let i = 0; i < content.length; i++) content[i] = (i * 31 + (i >> 12)) & 0xff;
    const path = join(dir, "big.ndjson");
    writeFileSync(path, content);
    const { bytes, count } = await bytesOf(processIo().openFile(path));
    expect(bytes.equals(content)).toBe(true);
    expect(count).toBe(21);
  });

  it("reads an empty file as no chunks", async () => {
    const path = join(dir, "empty.ndjson");
    writeFileSync(path, "");
    expect((await bytesOf(processIo().openFile(path))).count).toBe(0);
  });

  it.skipIf(process.platform === "win32")("reads a named pipe as a stream", async () => {
    const path = join(dir, "fifo");
    execFileSync("sh", ["-c", `mkfifo "$0"`, path]);
    const reading = bytesOf(processIo().openFile(path));
    // Another process writes: a write from this thread would block it before the stream opens the pipe.
    spawn("sh", ["-c", `printf '{"type":"x"}\\n' > "$0"`, path], { stdio: "ignore" });
    expect((await reading).bytes.toString()).toBe('{"type":"x"}\n');
  });

  it("refuses a directory before reading", () => {
    expect(() => processIo().openFile(dir)).toThrow(/is a directory/);
  });
});
