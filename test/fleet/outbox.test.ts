/**
 * The publisher's outbox under a window of publishes in flight (src/fleet/_outbox.ts): messages are
 * handed out in order, taken off only from the oldest, handed out again after a failure, and never
 * sent out of order when NATS fails while some of them are in flight.
 */
import { describe, expect, it } from "vitest";
import { createOutbox, type Outbox } from "../../src/fleet/_outbox.ts";
import { openSpool, type Spool, type SpooledMessage } from "../../src/fleet/spool.ts";
import { tempDir } from "../helpers/temp.ts";

const message = (i: number): SpooledMessage => ({ subject: "agentstream.h.a.s", id: `h.a.s:${i}`, data: `{"seq":${i}}` });
const ids = (messages: readonly SpooledMessage[]): number[] => messages.map((m) => Number(m.id.split(":")[1]));
const notices = { spooling: () => {}, caughtUp: () => {}, full: () => {} };

function outbox(): { outbox: Outbox; spool: Spool } {
  const spool = openSpool({ dir: tempDir("outbox"), host: "h", maxBytes: 1 << 20 });
  return { outbox: createOutbox(spool, notices), spool };
}

/** Everything the outbox hands out from now on, acknowledging each piece at once. */
function drain(box: Outbox): number[] {
  const sent: number[] = [];
  for (let piece = box.take(3); piece.length > 0; piece = box.take(3)) {
    sent.push(...ids(piece));
    box.commit(piece.length);
  }
  return sent;
}

describe("outbox", () => {
  it("hands out messages past those in flight, and again from the oldest unacknowledged after a rewind", () => {
    const { outbox: box } = outbox();
    for (let i = 0; i < 6; i++) box.add(message(i), true);
    expect(ids(box.take(2))).toEqual([0, 1]);
    expect(ids(box.take(2))).toEqual([2, 3]);
    box.commit(1);
    box.rewind();
    expect(drain(box)).toEqual([1, 2, 3, 4, 5]);
    expect(box.empty).toBe(true);
  });

  it("NATS fails while messages are in flight and others were sent from the spool: all of them again, in order", () => {
    const { outbox: box, spool } = outbox();
    for (let i = 0; i < 3; i++) box.add(message(i), true);
    expect(ids(box.take(3))).toEqual([0, 1, 2]); // in flight from memory
    box.spill("down");
    for (let i = 3; i < 6; i++) box.add(message(i), false); // spooled behind them
    expect(ids(box.take(3))).toEqual([3, 4, 5]); // in flight from the spool
    // No acknowledgement: the window fails, and NATS is said down once more.
    box.rewind();
    box.spill("down again");
    for (let i = 6; i < 8; i++) box.add(message(i), false);
    expect(drain(box)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(spool.empty).toBe(true);
  });

  it("commits of one spool read add up: the spool forgets exactly what was acknowledged", () => {
    const { outbox: box, spool } = outbox();
    box.spill("down");
    for (let i = 0; i < 5; i++) box.add(message(i), false);
    expect(ids(box.take(2))).toEqual([0, 1]);
    expect(ids(box.take(2))).toEqual([2, 3]);
    box.commit(1);
    box.commit(2);
    spool.close();
    const next = openSpool({ dir: spool.file.slice(0, spool.file.lastIndexOf("/")), host: "h", maxBytes: 1 << 20 });
    expect(ids(next.peek(10))).toEqual([3, 4]);
    next.close();
  });
});
