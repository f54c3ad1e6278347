/**
 * Streams one feed to one viewer as Server-Sent Events. The viewer is a cursor into the feed's
 * blocks (./session-feed.ts): woken once per turn of the event loop, it writes the blocks it has not
 * sent, as they are, while its socket takes them, and nothing while it does not, so a slow or stalled
 * tab costs the server one cursor and at most one block queued, never a copy of the stream. A viewer
 * that stays blocked longer than `stallMs`, or falls behind the frames the feed still keeps, is told
 * to resync and dropped; its EventSource reconnects with `Last-Event-ID`.
 */
import type { ServerResponse } from "node:http";
import type { SessionFeed } from "./session-feed.ts";

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
  let blocked = false;
  let closed = false;
  let stallTimer: NodeJS.Timeout | undefined;

  res.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",
  });
  // Events that were dropped from the feed before this viewer asked for them: say how many.
  const missing = options.after === undefined ? feed.firstIndex : feed.missedAfter(options.after);
  res.write(`retry: 1000\n\n${missing > 0 ? control("truncated", { dropped: missing }) : ""}`);

  const close = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    clearTimeout(stallTimer);
    unwatch();
    options.onClose?.();
  };

  const drop = (reason: string, stalled: boolean): void => {
    res.end(control("resync", { reason }));
    // A stalled socket never flushes that: free its buffers now.
    if (stalled) res.destroy();
    close();
  };

  const pump = (): void => {
    if (closed || blocked) return;
    if (cursor < feed.firstIndex) {
      drop("the frames this viewer needed were dropped; reconnect", false);
      return;
    }
    while (cursor < feed.endIndex) {
      // The feed's own bytes, shared by every viewer: a socket's queue holds references, not copies.
      const slice = feed.sliceFrom(cursor);
      cursor = slice.next;
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

/** A control frame: no `id:`, so it never moves the viewer's `Last-Event-ID`. */
function control(name: "heartbeat" | "resync" | "end" | "truncated", data: object): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
