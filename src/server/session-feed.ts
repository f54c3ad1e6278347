/**
 * One session as the server streams it: its events as ready-made SSE frames (serialized once,
 * shared by every viewer), the facts the session list shows, and who to wake when it grows.
 * Memory is bounded: past `maxBytes` of frames the oldest are dropped (a viewer that needs them is
 * told how many it missed).
 */
import { stringifyRecord } from "../framing/stringify.ts";
import type { AgentEvent } from "../model/events.ts";
import { SessionFacts, type SessionInfo } from "./session-facts.ts";

/** Someone streaming the feed: woken (synchronously) when frames are added or the feed ends. */
export interface FeedViewer {
  wake(): void;
}

/** The longest a feed's kept frames may grow (bytes of JSON) before the oldest are dropped. @defaultValue 64 MiB */
const FEED_MAX_BYTES = 64 * 1024 * 1024;

export class SessionFeed {
  readonly id: string;
  readonly file: string | null;
  /** Frames kept, oldest first; `frames[i]` has absolute index `dropped + i`. */
  private frames: string[] = [];
  private seqs: number[] = [];
  private start = 0;
  private bytes = 0;
  private dropped = 0;
  /** The seq of the last frame dropped, if any was. */
  private lastDroppedSeq: number | undefined;
  private ended = false;
  private live: boolean;
  /** The host that published it (a session of NATS), else null. */
  private readonly host: string | null;
  /** A title known beside the events (a subagent file's meta), which wins over the events' own. */
  private readonly title: string | undefined;
  private readonly viewers = new Set<FeedViewer>();
  /** The list's facts, folded as events pass; its `stats` and `dialect` point at the reader when one feeds the feed. */
  readonly facts = new SessionFacts();
  private readonly maxBytes: number;

  constructor(id: string, options: { file: string | null; live: boolean; maxBytes?: number; host?: string; title?: string }) {
    this.id = id;
    this.file = options.file;
    this.live = options.live;
    this.host = options.host ?? null;
    this.title = options.title;
    this.maxBytes = options.maxBytes ?? FEED_MAX_BYTES;
  }

  /** Adds one event (already redacted) and wakes the viewers. */
  push(event: AgentEvent): void {
    this.facts.add(event);
    const frame = `id: ${event.seq}\ndata: ${stringifyRecord(event)}\n\n`;
    this.frames.push(frame);
    this.seqs.push(event.seq);
    this.bytes += frame.length;
    while (this.bytes > this.maxBytes && this.frames.length - this.start > 1) this.dropOldest();
    for (const viewer of this.viewers) viewer.wake();
  }

  /** No more events will come. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.live = false;
    for (const viewer of this.viewers) viewer.wake();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Absolute index of the first frame kept. */
  get firstIndex(): number {
    return this.dropped;
  }

  /** Absolute index one past the last frame. */
  get endIndex(): number {
    return this.dropped + this.frames.length - this.start;
  }

  frameAt(index: number): string {
    return this.frames[this.start + index - this.dropped] as string;
  }

  /** Absolute index of the first frame whose seq is above `seq` (a `Last-Event-ID` resume). */
  indexAfter(seq: number): number {
    let low = this.start;
    let high = this.seqs.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.seqs[mid] as number) <= seq) low = mid + 1;
      else high = mid;
    }
    return this.dropped + low - this.start;
  }

  watch(viewer: FeedViewer): () => void {
    this.viewers.add(viewer);
    return () => this.viewers.delete(viewer);
  }

  get viewerCount(): number {
    return this.viewers.size;
  }

  info(): SessionInfo {
    const info = this.facts.info(this.id, this.file, this.live, this.host);
    return this.title === undefined ? info : { ...info, title: this.title };
  }

  /** How many dropped events a viewer resuming after `seq` has missed (events are numbered one by one). */
  missedAfter(seq: number): number {
    if (this.lastDroppedSeq === undefined || seq >= this.lastDroppedSeq) return 0;
    return Math.min(this.dropped, this.lastDroppedSeq - seq);
  }

  private dropOldest(): void {
    this.lastDroppedSeq = this.seqs[this.start];
    this.bytes -= (this.frames[this.start] as string).length;
    this.start++;
    this.dropped++;
    // Compact now and then rather than shifting on every drop.
    if (this.start > 4096 && this.start * 2 > this.frames.length) {
      this.frames = this.frames.slice(this.start);
      this.seqs = this.seqs.slice(this.start);
      this.start = 0;
    }
  }
}

/**
 * Calls `release` once nobody has watched `feed` for `releaseMs` (a feed opened on demand is kept
 * while viewers come and go, not for ever); returns the function that stops the watch.
 */
export function releaseWhenUnwatched(feed: SessionFeed, releaseMs: number, release: () => void): () => void {
  let unwatchedSince = Date.now();
  const idleCheck = setInterval(() => {
    if (feed.viewerCount > 0) unwatchedSince = Date.now();
    else if (Date.now() - unwatchedSince >= releaseMs) release();
  }, 1000);
  idleCheck.unref();
  return () => clearInterval(idleCheck);
}
