/** The publisher's on-disk spool: order, bound, crash safety, and segments left by a process that is gone. */
import { spawnSync } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSpool, type SpooledMessage } from "../../src/fleet/spool.ts";
import { tempDir } from "../helpers/temp.ts";

const message = (i: number, session = "s"): SpooledMessage => ({
  subject: `agentstream.h.a.${session}`,
  id: `h.a.${session}:${i}`,
  data: JSON.stringify({ v: 1, seq: i, type: "text", text: `line ${i} ünïcödé` }),
});

describe("spool", () => {
  it("gives messages back in the order they were appended, across peeks and commits", () => {
    const spool = openSpool({ dir: tempDir("spool"), host: "h", maxBytes: 1 << 20 });
    spool.append([0, 1, 2, 3, 4].map((i) => message(i)));
    expect(spool.peek(2).map((m) => m.id)).toEqual(["h.a.s:0", "h.a.s:1"]);
    // Not committed: the same two again.
    expect(spool.peek(2).map((m) => m.id)).toEqual(["h.a.s:0", "h.a.s:1"]);
    spool.commit(2);
    spool.append([message(5)]);
    expect(spool.peek(10).map((m) => m.id)).toEqual(["h.a.s:2", "h.a.s:3", "h.a.s:4", "h.a.s:5"]);
    expect(spool.peek(1)[0]).toEqual(message(2));
    spool.peek(10);
    spool.commit(4);
    expect(spool.empty).toBe(true);
    // Everything sent: the file starts again instead of growing.
    expect(readFileSync(spool.file).length).toBe(0);
    spool.close();
    expect(readdirSync(join(spool.file, ".."))).toEqual([]);
  });

  it("closes without an error when its folder was removed meanwhile, sent or not", () => {
    for (const sent of [true, false]) {
      const dir = tempDir("spool");
      const spool = openSpool({ dir, host: "h", maxBytes: 1 << 20 });
      spool.append([0, 1, 2].map((i) => message(i)));
      spool.peek(sent ? 3 : 1);
      spool.commit(sent ? 3 : 1);
      rmSync(dir, { recursive: true, force: true });
      expect(() => spool.close()).not.toThrow();
    }
  });

  it("drops what does not fit, counts it, and keeps what came before whole", () => {
    const one = Buffer.byteLength(`agentstream.h.a.s h.a.s:0 ${message(0).data}\n`);
    const spool = openSpool({ dir: tempDir("spool"), host: "h", maxBytes: one * 3 + 5 });
    expect(spool.append([0, 1, 2, 3, 4].map((i) => message(i)))).toBe(3);
    expect(spool.dropped).toBe(2);
    expect(spool.countWaiting()).toBe(3);
    spool.peek(3);
    spool.commit(3);
    // Room again once sent.
    expect(spool.append([message(5)])).toBe(1);
    expect(spool.dropped).toBe(2);
    spool.close();
  });

  it("a segment left by a process that is gone is sent first, a torn last line skipped; one still running is left alone", () => {
    const dir = tempDir("spool");
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const deadPid = Number(dead.stdout);
    const orphan = join(dir, `h.${deadPid}.abcd.spool`);
    const lines = [0, 1].map((i) => message(i, "old")).map((m) => `${m.subject} ${m.id} ${m.data}\n`);
    writeFileSync(orphan, lines.join(""));
    appendFileSync(orphan, 'agentstream.h.a.old h.a.old:2 {"v":1,"se'); // a crash mid-write
    const alive = join(dir, `h.${process.ppid}.ffff.spool`);
    writeFileSync(alive, `${lines[0]}`);
    const otherHost = join(dir, `other.${deadPid}.abcd.spool`);
    writeFileSync(otherHost, `${lines[0]}`);

    const spool = openSpool({ dir, host: "h", maxBytes: 1 << 20 });
    expect(spool.adopted).toHaveLength(1);
    spool.append([message(0, "new")]);
    const first = spool.peek(10);
    expect(first.map((m) => m.id)).toEqual(["h.a.old:0", "h.a.old:1"]);
    spool.commit(first.length);
    expect(spool.peek(10).map((m) => m.id)).toEqual(["h.a.new:0"]);
    spool.close();
    const left = readdirSync(dir).sort();
    expect(left).toContain(`h.${process.ppid}.ffff.spool`);
    expect(left).toContain(`other.${deadPid}.abcd.spool`);
    expect(left.some((name) => name.includes(`.${process.pid}.`))).toBe(true); // ours, with h.a.new:0 unsent
  });

  it("what was not sent at close stays on disk, without what was, for the next publisher", () => {
    const dir = tempDir("spool");
    const spool = openSpool({ dir, host: "h", maxBytes: 1 << 20 });
    spool.append([0, 1, 2].map((i) => message(i)));
    spool.peek(1);
    spool.commit(1);
    expect(spool.countWaiting()).toBe(2);
    spool.close();
    const next = openSpool({ dir, host: "h", maxBytes: 1 << 20 });
    expect(next.adopted).toHaveLength(1);
    expect(next.peek(10).map((m) => m.id)).toEqual(["h.a.s:1", "h.a.s:2"]);
    next.close();
  });
});

describe("spool: what was in flight at close", () => {
  it("goes before everything spooled after it, and the file stays whole", () => {
    const dir = tempDir("spool");
    const spool = openSpool({ dir, host: "h", maxBytes: 1 << 20 });
    spool.append([3, 4].map((i) => message(i)));
    spool.prepend([1, 2].map((i) => message(i)));
    expect(spool.peek(10).map((m) => m.id)).toEqual(["h.a.s:1", "h.a.s:2", "h.a.s:3", "h.a.s:4"]);
    spool.commit(1);
    spool.prepend([message(0)]);
    expect(spool.peek(10).map((m) => m.id)).toEqual(["h.a.s:0", "h.a.s:2", "h.a.s:3", "h.a.s:4"]);
    spool.close();
    expect(
      readFileSync(join(dir, readdirSync(dir)[0] as string), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(4);
  });
});
