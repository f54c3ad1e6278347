/** One place for output batching: per chunk (files, stdin) or per turn of the event loop (a running agent). */
import { describe, expect, it } from "vitest";
import type { CliOutput } from "../../src/cli/io.ts";
import { createBatchedOutput, createLiveOutput } from "../../src/cli/output.ts";

function capture(): CliOutput & { writes: string[] } {
  const writes: string[] = [];
  return { isTTY: false, writes, write: (text) => void writes.push(text) };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("createBatchedOutput", () => {
  it("holds text until flush, then writes it as one piece; an empty flush writes nothing", async () => {
    const target = capture();
    const output = createBatchedOutput(target);
    output.write("a");
    output.write("");
    output.write("b\n");
    expect(target.writes).toEqual([]);
    await output.flush();
    await output.flush();
    expect(target.writes).toEqual(["ab\n"]);
  });

  it("to a target that takes bytes, writes the batch as its UTF-8 encoding in one buffer, whatever the characters", async () => {
    const chunks: Uint8Array[] = [];
    const target: CliOutput = { isTTY: false, write: () => expect.unreachable(), writeBytes: (bytes) => void chunks.push(bytes) };
    const output = createBatchedOutput(target);
    // ASCII, two- three- and four-byte characters, a lone surrogate (written as U+FFFD), and a batch past
    // the size below which the buffer is sized for the worst case.
    const parts = ["plain\n", "é ü", "配置文件", "👩‍💻🇻🇳", "\ud800", "\u2028", `${"x".repeat(1 << 20)}é\n`];
    for (const part of parts) output.write(part);
    await output.flush();
    output.write("second\n");
    await output.flush();
    expect(chunks.map((c) => Buffer.from(c).toString("utf8"))).toEqual([parts.join("").replace("\ud800", "\ufffd"), "second\n"]);
    // Byte for byte (Buffer.equals: toEqual walks a megabyte element by element, seconds).
    expect(Buffer.from(chunks[0] as Uint8Array).equals(Buffer.from(parts.join(""), "utf8"))).toBe(true);
  });

  it("queues bytes between text in order; a target that takes only text gets them decoded", async () => {
    const bytes: Uint8Array[] = [];
    const toBytes = createBatchedOutput({ isTTY: false, write: () => expect.unreachable(), writeBytes: (b) => void bytes.push(b) });
    const text = capture();
    const toText = createBatchedOutput(text);
    for (const output of [toBytes, toText]) {
      output.write('{"output":');
      output.writeBytes(Buffer.from(JSON.stringify("配置 👩‍💻\n")));
      output.writeBytes(new Uint8Array(0));
      output.write("}\n");
      await output.flush();
    }
    expect(Buffer.from(bytes[0] as Uint8Array).toString("utf8")).toBe('{"output":"配置 👩‍💻\\n"}\n');
    expect(text.writes).toEqual(['{"output":"配置 👩‍💻\\n"}\n']);
  });
});

describe("createLiveOutput", () => {
  it("writes what one turn of the event loop produced in one write", async () => {
    const target = capture();
    const output = createLiveOutput(target);
    for (const piece of ["one ", "two ", "three\n"]) {
      output.write(piece);
      await output.settle();
    }
    expect(target.writes).toEqual([]);
    await nextTurn();
    expect(target.writes).toEqual(["one two three\n"]);
  });

  it("past 1 MB queued, settle writes at once and waits for the consumer", async () => {
    const target = capture();
    const output = createLiveOutput(target);
    output.write("x".repeat((1 << 20) + 1));
    await output.settle();
    expect(target.writes.map((w) => w.length)).toEqual([(1 << 20) + 1]);
  });

  it("queues at most 64 KB of a flood before it writes: text held across many chunks would be promoted garbage", async () => {
    const target = capture();
    const output = createLiveOutput(target);
    // A flooding agent: many events' text within one turn of the event loop, as when several pipe chunks are read at once.
    for (let i = 0; i < 200; i++) {
      output.write(`${"y".repeat(999)}\n`);
      await output.settle();
    }
    expect(target.writes.length).toBeGreaterThanOrEqual(2);
    for (const write of target.writes) expect(write.length).toBeLessThanOrEqual((1 << 16) + 1000);
    await nextTurn();
    expect(target.writes.join("")).toBe(`${"y".repeat(999)}\n`.repeat(200));
  });
});
