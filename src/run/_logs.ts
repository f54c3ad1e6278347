/**
 * The per-run log files. Every write is one synchronous `write(2)` of whole lines (the raw and stderr
 * copies: whole chunks, appended before they are parsed), so a SIGKILL of us or of the agent at any
 * moment leaves each file intact up to its last complete line. Files are created 0600.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../model/events.ts";
import { createOneshotWriter } from "../serialize/to-oneshot.ts";
import { toLine } from "../serialize/index.ts";

/** Where a run's logs went. */
export interface RunLogFiles {
  /** Every byte of the agent's stdout, as read (the audit copy: never redacted). */
  readonly raw: string;
  /** Every byte of the agent's stderr. */
  readonly stderr: string;
  /** Our events, one JSON line each. */
  readonly events: string;
  /** The oneshot seed's packets (heartbeats included). */
  readonly oneshot: string;
  /** The run's summary (RunResult without the events), written once at the end. */
  readonly summary: string;
}

export interface RunLogs {
  readonly files: RunLogFiles;
  raw(chunk: Uint8Array): void;
  stderr(chunk: Uint8Array): void;
  /** Queues an event; `flush` writes the queued lines in one write per file. */
  event(event: AgentEvent): void;
  flush(): void;
  /** Writes the summary and closes every file. */
  close(summary: unknown): void;
}

export function openRunLogs(dir: string, runId: string): RunLogs {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const files: RunLogFiles = {
    raw: join(dir, `${runId}.raw`),
    stderr: join(dir, `${runId}.stderr`),
    events: join(dir, `${runId}.events.ndjson`),
    oneshot: join(dir, `${runId}-oneshot-log.json`),
    summary: join(dir, `${runId}.summary.json`),
  };
  const open = (path: string): number => openSync(path, "a", 0o600);
  const fds = { raw: open(files.raw), stderr: open(files.stderr), events: open(files.events), oneshot: open(files.oneshot) };
  const oneshot = createOneshotWriter();
  let events: string[] = [];
  let packets: string[] = [];
  const writeAll = (fd: number, data: Uint8Array | string): void => {
    if (typeof data === "string") {
      // Text goes out without a copy into a Buffer first; a short write (a full disk) falls back to bytes.
      const written = writeSync(fd, data);
      const bytes = Buffer.byteLength(data);
      if (written < bytes) writeAll(fd, Buffer.from(data).subarray(written));
      return;
    }
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
  };
  const flush = (): void => {
    if (events.length > 0) writeAll(fds.events, events.join(""));
    if (packets.length > 0) writeAll(fds.oneshot, packets.join(""));
    events = [];
    packets = [];
  };
  return {
    files,
    raw: (chunk) => writeAll(fds.raw, chunk),
    stderr: (chunk) => writeAll(fds.stderr, chunk),
    event(event) {
      events.push(`${toLine(event)}\n`);
      const packet = oneshot.write(event);
      if (packet !== "") packets.push(packet);
    },
    flush,
    close(summary) {
      const rest = oneshot.end();
      if (rest !== "") packets.push(rest);
      flush();
      for (const fd of Object.values(fds)) closeSync(fd);
      const fd = open(files.summary);
      writeAll(fd, `${JSON.stringify(summary, null, 2)}\n`);
      closeSync(fd);
    },
  };
}
