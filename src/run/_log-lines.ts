/**
 * The text of the events and oneshot logs, and where it goes: shared by the log worker and by the
 * in-thread writer (used when the worker cannot be loaded, as when the sources run untranspiled).
 * Each batch becomes one synchronous write per file (more when it outgrows the buffer), of whole
 * lines only, so a SIGKILL at any moment leaves both files intact up to their last complete line.
 */
import { writeSync } from "node:fs";
import type { AgentEvent } from "../model/events.ts";
import { LosslessInteger } from "../model/lossless-integer.ts";
import { createOneshotEncoder } from "../formats/oneshot/encode.ts";
import { stringifyRecord } from "../framing/stringify.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { HeldStrings, mayHoldPlaceholder, splice, type Piece } from "../framing/held-strings.ts";

/** The file descriptors the event-derived logs are appended to. */
export interface LogLineFds {
  readonly events: number;
  readonly oneshot: number;
}

export interface LogLineWriter {
  /**
   * Serializes the batch once per log and appends it: one write per file. `plainJson`: no event can hold a
   * LosslessInteger (the reader reported none), so each line is `JSON.stringify`'s, without the walk that looks for one.
   */
  write(events: readonly AgentEvent[], plainJson?: boolean): void;
  /** The oneshot packets held until the end (a preamble with no session yet). */
  end(): void;
}

/**
 * `held` holds the bytes of the strings the events' placeholders stand for (`run --to agentstream`; the log
 * worker's has the main thread's nonce and adopts what it is sent); the writer does not release them.
 */
export function createLogLineWriter(fds: LogLineFds, reads: HeldStrings | undefined, runId?: string): LogLineWriter {
  const held = reads ?? new HeldStrings();
  // The record encoder, not the format's text writer: each packet is encoded straight into the
  // buffer below (the same text as `run --to oneshot`: the run's id, a completion however the agent ended).
  const oneshot = createOneshotEncoder(runId === undefined ? {} : { run: { runId } });
  const events = createLineBuffer(fds.events, held);
  const packets = createLineBuffer(fds.oneshot, held);
  return {
    write(batch, plainJson = false) {
      const stringify = plainJson ? plainStringify : stringifyRecord;
      for (const event of batch) {
        const keys: string[] = [];
        const written = withLongTextsHeld(event, held, keys);
        events.add(stringify(written));
        for (const packet of oneshot.encode(written)) packets.add(stringify(packet));
        for (const key of keys) held.release(key);
      }
      events.flush();
      packets.flush();
    },
    end() {
      for (const packet of oneshot.end()) packets.add(stringifyRecord(packet));
      packets.flush();
    },
  };
}

/** A record's JSON when it holds no LosslessInteger (an event or packet is always an object: never `undefined`). */
function plainStringify(record: unknown): string {
  return JSON.stringify(record) as string;
}

/** A text this long (UTF-16 units) is escaped once per event; shorter ones cost less to escape again than to look up. */
const LONG_TEXT = 8192;

/**
 * The event with its long tool output texts held (`HeldStrings.holdText`; their keys pushed to `keys`): each
 * is escaped and encoded once, though both logs write it and Claude's `tool_use_result.stdout` repeats the
 * output in `result`, and spliced in where its placeholder is. `JSON.stringify` escapes a string the same
 * wherever it stands, so the text is the same. The event itself when it has none.
 */
function withLongTextsHeld(event: AgentEvent, held: HeldStrings, keys: string[]): AgentEvent {
  if (event.type !== "tool.completed") return event;
  const placeholders = new Map<string, string>();
  const hold = (value: unknown): unknown => {
    if (typeof value !== "string" || value.length < LONG_TEXT) return value;
    let placeholder = placeholders.get(value);
    if (placeholder === undefined) {
      placeholder = held.holdText(value);
      placeholders.set(value, placeholder);
      keys.push(held.keyOf(placeholder) as string);
    }
    return placeholder;
  };
  const output = event.output === undefined ? undefined : (hold(event.output) as string);
  let result = event.result;
  if (isJsonObject(result)) {
    let copy: typeof result | undefined;
    for (const key of Object.keys(result)) {
      const value = hold(result[key]);
      if (value === result[key]) continue;
      copy ??= { ...result };
      copy[key] = value as string; // an existing key keeps its place
    }
    result = copy ?? result;
  }
  if (output === event.output && result === event.result) return event;
  // Existing keys keep their place in a spread, so the text keeps its key order.
  return {
    ...event,
    ...(output === event.output || output === undefined ? {} : { output }),
    ...(result === event.result ? {} : { result }),
  };
}

/** A reused buffer this size is kept between batches; a longer line gets a buffer of its own. */
const BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Lines encoded straight into one reused buffer, the newline added as a byte, and written with one
 * write per batch (more only when a batch outgrows the buffer; every write ends at a line's end).
 */
function createLineBuffer(fd: number, held: HeldStrings): { add(json: string): void; flush(): void } {
  const buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  let length = 0;
  const flush = (): void => {
    if (length > 0) writeAll(fd, buffer.subarray(0, length));
    length = 0;
  };
  return {
    add(json) {
      // A placeholder may stand in any event (a notice quoting a record), not only in a tool's output.
      const pieces = mayHoldPlaceholder(json, held) ? splice(json, held) : [json];
      // UTF-8 needs at most 3 bytes per UTF-16 unit, and the newline one more.
      let most = 1;
      for (const piece of pieces) most += typeof piece === "string" ? piece.length * 3 : piece.length;
      if (length + most > buffer.length) flush();
      if (most > buffer.length) {
        writeAll(fd, Buffer.concat([...pieces.map((piece: Piece) => (typeof piece === "string" ? Buffer.from(piece) : piece)), NEWLINE]));
        return;
      }
      for (const piece of pieces) {
        if (typeof piece === "string") length += buffer.write(piece, length);
        else {
          buffer.set(piece, length);
          length += piece.length;
        }
      }
      buffer[length++] = 0x0a;
    },
    flush,
  };
}

const NEWLINE = Buffer.from("\n");

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
