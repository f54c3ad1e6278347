/**
 * One session as the server streams it: its events as ready-made SSE frames, the facts the session
 * list shows, and who to wake when it grows. Each event is serialized once and the frames added in
 * one turn of the event loop are encoded once, into one UTF-8 block every viewer writes as it is
 * (a viewer is a cursor into the blocks, never a copy); the viewers are woken once per turn, not
 * once per event. Memory is bounded whatever the stream's length: past `maxBytes` of frames the
 * oldest blocks are released. A viewer that needs frames no longer kept reads them again from the
 * feed's log when it has one (`reread`: a late joiner or a slow viewer costs a read of the file,
 * not memory), else is told how many it missed.
 */
import { stringifyRecord } from "../framing/stringify.ts";
import type { AgentEvent } from "../model/events.ts";
import { SessionFacts, type SessionInfo } from "./session-facts.ts";

/** Someone streaming the feed: woken when frames are added (once per turn of the event loop) or the feed ends. */
export interface FeedViewer {
  wake(): void;
}

/** The longest a feed's kept frames may grow (bytes of JSON) before the oldest are dropped, when nothing can read them again. @defaultValue 64 MiB */
const FEED_MAX_BYTES = 64 * 1024 * 1024;
/** The same bound for a feed that can read its log again ({@link FeedOptions.reread}): only the recent frames, for the viewers keeping up. @defaultValue 16 MiB */
const REREAD_FEED_MAX_BYTES = 16 * 1024 * 1024;
/** Frames gathered into one block at most (a block is what one socket write carries). */
const BLOCK_BYTES = 256 * 1024;

/** Frames encoded together: `bytes` holds frames `first` .. `first + seqs.length - 1`, frame i at `offsets[i]`. */
interface Block {
  readonly first: number;
  readonly seqs: readonly number[];
  /** Byte offset of each frame in `bytes`, then `bytes.length`. */
  readonly offsets: readonly number[];
  readonly bytes: Buffer;
}

/** What a viewer writes next: the bytes of its frames from a cursor to the end of their block, and the cursor after them. */
export interface FeedSlice {
  readonly bytes: Buffer;
  readonly next: number;
  /** The seq of the slice's last frame. */
  readonly lastSeq: number;
}

/** The feed's events read again from its log, from the first, in batches (a chunk of the file's worth each); stopped by `return()`. */
export type FeedReread = () => AsyncIterable<readonly AgentEvent[]>;

/** Options for a {@link SessionFeed}. */
export interface FeedOptions {
  readonly file: string | null;
  readonly live: boolean;
  /** Bytes of frames kept in memory. @defaultValue 64 MiB, 16 MiB with `reread` */
  readonly maxBytes?: number;
  readonly host?: string;
  readonly title?: string;
  /** Reads the feed's events again from its log, numbered as the feed numbered them: viewers behind the kept frames catch up from there. */
  readonly reread?: FeedReread;
}

/** An event as one SSE frame (`id:` is its seq, for `Last-Event-ID`). */
export function frameOf(event: AgentEvent): string {
  return `id: ${event.seq}\ndata: ${stringifyRecord(event)}\n\n`;
}

export class SessionFeed {
  readonly id: string;
  readonly file: string | null;
  /** Blocks kept, oldest first (a dropped block leaves at once: nothing else refers to its bytes). */
  private readonly blocks: Block[] = [];
  /** Frames pushed since the last block was made. */
  private pending: string[] = [];
  private pendingSeqs: number[] = [];
  private pendingBytes = 0;
  /** A wake of the viewers is due at the end of this turn. */
  private wakeDue = false;
  private bytes = 0;
  private dropped = 0;
  /** The seq of the last frame dropped, if any was. */
  private lastDroppedSeq: number | undefined;
  /** The seq of the last event pushed, if any was. */
  private lastPushedSeq: number | undefined;
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
  private readonly blockBytes: number;
  /** FeedOptions.reread. */
  readonly reread: FeedReread | undefined;

  constructor(id: string, options: FeedOptions) {
    this.id = id;
    this.file = options.file;
    this.live = options.live;
    this.host = options.host ?? null;
    this.title = options.title;
    this.reread = options.reread;
    this.maxBytes = options.maxBytes ?? (options.reread === undefined ? FEED_MAX_BYTES : REREAD_FEED_MAX_BYTES);
    // A block is a unit of dropping too: several of them fit under the bound.
    this.blockBytes = Math.min(BLOCK_BYTES, Math.floor(this.maxBytes / 16));
  }

  /** Adds one event (already redacted); the viewers are woken at the end of this turn, once for every event added in it. */
  push(event: AgentEvent): void {
    this.facts.add(event);
    this.lastPushedSeq = event.seq;
    const frame = frameOf(event);
    this.pending.push(frame);
    this.pendingSeqs.push(event.seq);
    this.pendingBytes += frame.length;
    if (this.pendingBytes >= this.blockBytes) this.seal();
    if (!this.wakeDue) {
      this.wakeDue = true;
      setImmediate(() => {
        this.wakeDue = false;
        this.wakeAll();
      });
    }
  }

  /** No more events will come. */
  end(): void {
    if (this.ended) return;
    this.seal();
    this.ended = true;
    this.live = false;
    this.wakeAll();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Absolute index of the first frame kept. */
  get firstIndex(): number {
    this.seal();
    return this.dropped;
  }

  /** Absolute index one past the last frame. */
  get endIndex(): number {
    this.seal();
    const last = this.blocks[this.blocks.length - 1];
    return last === undefined ? this.dropped : last.first + last.seqs.length;
  }

  /** The seq of the last event pushed (undefined: none yet). */
  get lastSeq(): number | undefined {
    return this.lastPushedSeq;
  }

  /** Blocks of frames held in memory now (bounded by `maxBytes`, whatever the stream's length). */
  get retainedBlocks(): number {
    this.seal();
    return this.blocks.length;
  }

  /** Bytes of frames held in memory now. */
  get retainedBytes(): number {
    this.seal();
    return this.bytes;
  }

  /** One frame's text (a test's view of the blocks; viewers write {@link sliceFrom}). */
  frameAt(index: number): string {
    const block = this.blockOf(index);
    const i = index - block.first;
    return block.bytes.toString("utf8", block.offsets[i], block.offsets[i + 1]);
  }

  /** The frames from `index` (kept, below `endIndex`) to the end of their block, as the bytes shared by every viewer. */
  sliceFrom(index: number): FeedSlice {
    const block = this.blockOf(index);
    const offset = block.offsets[index - block.first] as number;
    return {
      bytes: offset === 0 ? block.bytes : block.bytes.subarray(offset),
      next: block.first + block.seqs.length,
      lastSeq: block.seqs[block.seqs.length - 1] as number,
    };
  }

  /** Absolute index of the first frame whose seq is above `seq` (a `Last-Event-ID` resume). */
  indexAfter(seq: number): number {
    this.seal();
    let low = 0;
    let high = this.blocks.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const block = this.blocks[mid] as Block;
      if ((block.seqs[block.seqs.length - 1] as number) <= seq) low = mid + 1;
      else high = mid;
    }
    const block = this.blocks[low];
    if (block === undefined) return this.endIndex;
    let i = 0;
    while ((block.seqs[i] as number) <= seq) i++;
    return block.first + i;
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
    this.seal();
    if (this.lastDroppedSeq === undefined || seq >= this.lastDroppedSeq) return 0;
    return Math.min(this.dropped, this.lastDroppedSeq - seq);
  }

  private wakeAll(): void {
    for (const viewer of this.viewers) viewer.wake();
  }

  /** The kept block holding frame `index`. */
  private blockOf(index: number): Block {
    this.seal();
    let low = 0;
    let high = this.blocks.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if ((this.blocks[mid] as Block).first <= index) low = mid;
      else high = mid - 1;
    }
    return this.blocks[low] as Block;
  }

  /** Encodes the pending frames into one block (once: every viewer writes those bytes), then keeps under the bound. */
  private seal(): void {
    if (this.pending.length === 0) return;
    const offsets: number[] = [0];
    let at = 0;
    for (const frame of this.pending) {
      at += Buffer.byteLength(frame);
      offsets.push(at);
    }
    const bytes = Buffer.from(this.pending.join(""), "utf8");
    const last = this.blocks[this.blocks.length - 1];
    const first = last === undefined ? this.dropped : last.first + last.seqs.length;
    this.blocks.push({ first, seqs: this.pendingSeqs, offsets, bytes });
    this.bytes += bytes.length;
    this.pending = [];
    this.pendingSeqs = [];
    this.pendingBytes = 0;
    while (this.bytes > this.maxBytes && this.blocks.length > 1) this.dropOldest();
  }

  private dropOldest(): void {
    const block = this.blocks.shift() as Block;
    this.lastDroppedSeq = block.seqs[block.seqs.length - 1];
    this.bytes -= block.bytes.length;
    this.dropped += block.seqs.length;
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
