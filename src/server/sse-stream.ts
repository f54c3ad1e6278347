/**
 * Streams one feed to one viewer as Server-Sent Events. The viewer is a cursor into the feed's
 * blocks (./session-feed.ts): woken once per turn of the event loop, it writes the blocks it has not
 * sent, as they are, while its socket takes them, and nothing while it does not, so a slow or stalled
 * tab costs the server one cursor and at most one block queued, never a copy of the stream. A viewer
 * that needs frames the feed no longer keeps (it joined late, or fell behind) reads them again from
 * the feed's log, a chunk at a time as its socket takes them, then goes on from the feed's frames:
 * every event once, in order, and no memory that grows with the log. A viewer that stays blocked
 * longer than `stallMs`, or falls behind the frames of a feed that cannot read its log again, is
 * told to resync and dropped; its EventSource reconnects with `Last-Event-ID`.
 */
import type { ServerResponse } from "node:http";
import { type FeedReread, frameOf, type SessionFeed } from "./session-feed.ts";

/** Options for {@link streamFeed}. */
export interface StreamOptions {
  /** Resume after this seq (the `Last-Event-ID` header); absent: from the first event. */
  readonly after?: number;
  /** A control frame this often while the stream is quiet. @defaultValue 15000 */
  readonly heartbeatMs?: number;
  /** How long a viewer may refuse data before it is dropped. @defaultValue 10000 */
  readonly stallMs?: number;
  /** Called once when the stream ends, for whatever reason. */
  readonly onClose?: () => void;
}

/** Starts streaming `feed` on `res` (headers already checked by the caller). */
export function streamFeed(feed: SessionFeed, res: ServerResponse, options: StreamOptions = {}): void {
  const stallMs = options.stallMs ?? 10_000;
  let cursor = options.after === undefined ? feed.firstIndex : feed.indexAfter(options.after);
  /** The seq of the last event this viewer has (its `Last-Event-ID`), -1 before any: where reading the log again resumes. */
  let sent = options.after ?? -1;
  let blocked = false;
  let closed = false;
  let rereading = false;
  let stallTimer: NodeJS.Timeout | undefined;
  /** Wakes a reading of the log again that waits for the socket to drain (false: the viewer is gone). */
  let drained: ((open: boolean) => void) | undefined;

  writeStreamHead(feed, res, options.after);

  const close = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(stallTimer);
    unwatch();
    drained?.(false);
    options.onClose?.();
  };

  const drop = (reason: string, stalled: boolean): void => {
    res.end(control("resync", { reason }));
    // A stalled socket never flushes that: free its buffers now.
    if (stalled) res.destroy();
    close();
  };

  /** Resolves once the socket drained (true) or the viewer is gone (false); a socket that stays full drops it. */
  const waitForDrain = (): Promise<boolean> =>
    new Promise((resolve) => {
      blocked = true;
      drained = resolve;
      stallTimer = setTimeout(() => drop("this viewer stopped reading", true), stallMs);
      res.once("drain", () => {
        blocked = false;
        drained = undefined;
        clearTimeout(stallTimer);
        resolve(!closed);
      });
    });

  /** Sends the events after `sent` that the feed no longer keeps, read again from its log, then goes on from the feed's frames. */
  const catchUp = async (reread: FeedReread): Promise<void> => {
    rereading = true;
    let caughtUp = false;
    try {
      for await (const events of reread()) {
        // Never past what the feed has: from there on its own frames are this viewer's.
        const upTo = feed.lastSeq ?? -1;
        let text = "";
        for (const event of events) {
          if (event.seq <= sent || event.seq > upTo) continue;
          text += frameOf(event);
          sent = event.seq;
        }
        if (closed || (text !== "" && !res.write(text) && !(await waitForDrain()))) return;
        if (feed.missedAfter(sent) === 0) {
          caughtUp = true;
          break;
        }
      }
    } catch {
      // The log vanished or cannot be read: the viewer is told to resync below.
    } finally {
      rereading = false;
    }
    if (closed) return;
    if (!caughtUp) {
      drop("the log changed while it was read again; reconnect", false);
      return;
    }
    cursor = feed.indexAfter(sent);
    pump();
  };

  const pump = (): void => {
    if (closed || blocked || rereading) return;
    const reread = feed.reread;
    if (reread !== undefined ? feed.missedAfter(sent) > 0 : cursor < feed.firstIndex) {
      if (reread === undefined) drop("the frames this viewer needed were dropped; reconnect", false);
      else void catchUp(reread);
      return;
    }
    while (cursor < feed.endIndex) {
      // The feed's own bytes, shared by every viewer: a socket's queue holds references, not copies.
      const slice = feed.sliceFrom(cursor);
      cursor = slice.next;
      sent = slice.lastSeq;
      if (!res.write(slice.bytes)) {
        blocked = true;
        stallTimer = setTimeout(() => drop("this viewer stopped reading", true), stallMs);
        res.once("drain", () => {
          blocked = false;
          clearTimeout(stallTimer);
          pump();
        });
        return;
      }
    }
    if (feed.isEnded) {
      res.end(control("end", {}));
      close();
    }
  };

  const unwatch = feed.watch({ wake: pump });
  const heartbeat = setInterval(() => {
    if (!blocked && !closed) res.write(control("heartbeat", { time: new Date().toISOString(), live: !feed.isEnded }));
  }, options.heartbeatMs ?? 15_000);
  res.on("close", close);
  pump();
}

/** The response's head and the stream's first frames: the reconnection delay, and what this viewer can never get. */
function writeStreamHead(feed: SessionFeed, res: ServerResponse, after: number | undefined): void {
  res.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",
  });
  // Events that were dropped from the feed before this viewer asked for them, and cannot be read again: say how many.
  const missing = feed.reread !== undefined ? 0 : after === undefined ? feed.firstIndex : feed.missedAfter(after);
  res.write(`retry: 1000\n\n${missing > 0 ? control("truncated", { dropped: missing }) : ""}`);
}

/** A control frame: no `id:`, so it never moves the viewer's `Last-Event-ID`. */
function control(name: "heartbeat" | "resync" | "end" | "truncated", data: object): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
