/**
 * The text of the events and oneshot logs, and where it goes: shared by the log worker and by the
 * in-thread writer (used when the worker cannot be loaded, as when the sources run untranspiled).
 * Each batch becomes one synchronous write per file, of whole lines only, so a SIGKILL at any moment
 * leaves both files intact up to their last complete line.
 */
import { writeSync } from "node:fs";
import type { AgentEvent } from "../model/events.ts";
import { LosslessInteger } from "../model/lossless-integer.ts";
import { oneshotFormat } from "../formats/oneshot/index.ts";
import { createFormatWriter } from "../formats/writer.ts";
import { toLine } from "../formats/agentstream/encode.ts";

/** The file descriptors the event-derived logs are appended to. */
export interface LogLineFds {
  readonly events: number;
  readonly oneshot: number;
}

export interface LogLineWriter {
  /** Serializes the batch once per log and appends it: one write per file. */
  write(events: readonly AgentEvent[]): void;
  /** The oneshot packets held until the end (a preamble with no session yet). */
  end(): void;
}

export function createLogLineWriter(fds: LogLineFds): LogLineWriter {
  const oneshot = createFormatWriter(oneshotFormat);
  const out = createLineBuffer();
  return {
    write(events) {
      const lines: string[] = [];
      const packets: string[] = [];
      for (const event of events) {
        lines.push(`${toLine(event)}\n`);
        const packet = oneshot.write(event);
        if (packet !== "") packets.push(packet);
      }
      out.writeLines(fds.events, lines);
      out.writeLines(fds.oneshot, packets);
    },
    end() {
      const rest = oneshot.end();
      if (rest !== "") writeAll(fds.oneshot, rest);
    },
  };
}

/** A reused buffer this size or smaller is kept between batches; a bigger batch gets its own. */
const KEPT_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Writes a batch of lines as one write: each line is encoded straight into one buffer, which costs
 * about half of joining them into one string and writing that (the join copies every line first).
 */
function createLineBuffer(): { writeLines(fd: number, lines: readonly string[]): void } {
  let kept = Buffer.allocUnsafe(64 * 1024);
  return {
    writeLines(fd, lines) {
      if (lines.length === 0) return;
      let most = 0;
      for (const line of lines) most += line.length * 3; // UTF-8 needs at most 3 bytes per UTF-16 unit
      const buffer = most <= kept.length ? kept : Buffer.allocUnsafe(most);
      if (buffer !== kept && most <= KEPT_BUFFER_BYTES) kept = buffer;
      let length = 0;
      for (const line of lines) length += buffer.write(line, length);
      writeAll(fd, buffer.subarray(0, length));
    },
  };
}

export function writeAll(fd: number, data: Uint8Array | string): void {
  if (typeof data === "string") {
    // Text goes out without a copy into a Buffer first; a short write (a full disk) falls back to bytes.
    const written = writeSync(fd, data);
    const bytes = Buffer.byteLength(data);
    if (written < bytes) writeAll(fd, Buffer.from(data).subarray(written));
    return;
  }
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/**
 * Where an event holds a LosslessInteger (an input integer beyond 2^53): a structured clone keeps its
 * digits but not its class, so the worker puts the class back at these paths before writing.
 */
export type LosslessPaths = readonly (readonly [path: readonly (string | number)[], source: string])[];

export function findLosslessIntegers(
  value: unknown,
  path: (string | number)[] = [],
  found: [(string | number)[], string][] = [],
): LosslessPaths {
  if (typeof value !== "object" || value === null) return found;
  if (value instanceof LosslessInteger) {
    found.push([[...path], value.source]);
    return found;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      findLosslessIntegers(value[i], path, found);
      path.pop();
    }
    return found;
  }
  for (const key of Object.keys(value)) {
    path.push(key);
    findLosslessIntegers((value as Record<string, unknown>)[key], path, found);
    path.pop();
  }
  return found;
}

export function restoreLosslessIntegers(value: unknown, paths: LosslessPaths): void {
  for (const [path, source] of paths) {
    let container = value as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) container = container[key] as Record<string | number, unknown>;
    container[path.at(-1) as string | number] = new LosslessInteger(source);
  }
}
