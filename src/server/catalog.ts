/**
 * The sessions the server may show: logs found under the paths it was given (any dialect, detected
 * from their first records; `agentstream run --log` folders, live while their run goes on) and
 * sessions handed to it directly (`agentstream run --serve`). Only files whose real path is under a
 * given path are ever opened: symbolic links that lead elsewhere are skipped, and the API names
 * sessions by an id, never by a path.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import { open, readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, sep } from "node:path";
import { AgentStreamError } from "../errors.ts";
import type { AgentEvent } from "../model/events.ts";
import { createEventReader, type EventReader, type ReadOptions } from "../pipeline/create-event-reader.ts";
import { followFile, isFollowRestart } from "../follow/follow-file.ts";
import { registeredRuns } from "./registry.ts";
import { openRemoteFeed } from "./remote-feed.ts";
import { oneLine, SessionFacts, type SessionInfo } from "./session-facts.ts";
import { releaseWhenUnwatched, SessionFeed } from "./session-feed.ts";
import type { SessionSource, SourceStatus } from "./session-source.ts";

/** Options for {@link createCatalog}. */
export interface CatalogOptions {
  /** Files and folders to serve (resolved to their real paths once, at start). */
  readonly paths: readonly string[];
  /** How logs are read; `redact` should stay on (secrets never leave the server). */
  readonly read: Omit<ReadOptions, "onIssue" | "file">;
  /** Followed logs look for growth this often when no change notification comes. @defaultValue 250 */
  readonly pollMs?: number;
  /** A walk of the served paths this recent answers the list again. @defaultValue 1000 */
  readonly rescanMs?: number;
  /** The folder where `run --serve` servers register (./registry.ts); absent: none are listed. */
  readonly registry?: string;
  /** A feed nobody watches is released after this long. @defaultValue 60000 */
  readonly releaseMs?: number;
  /** Bytes of frames a log's feed keeps in memory (older ones are read again from the log for who needs them). @defaultValue 16 MiB */
  readonly feedBytes?: number;
  /** Other sources of sessions, listed beside the files (`serve --nats`: ./session-source.ts). */
  readonly sources?: readonly SessionSource[];
  /**
   * A run log without its summary is live only while it was written this recently (`run` writes a heartbeat
   * every 15 s while its agent is silent): a run killed before it could write its summary is over. @defaultValue 120000
   */
  readonly quietMs?: number;
}

/** A log found under the served paths. */
interface LogFile {
  readonly id: string;
  /** The path as found (the given path joined with the names walked): what the list shows. */
  readonly shown: string;
  readonly real: string;
  /** For a run log's events file: the summary file whose appearance ends the run. */
  readonly runSummary: string | undefined;
  /** The run was over (its summary written) when the file was found: part of what makes a change. */
  readonly runEnded: boolean;
  /** A subagent file (`<session>/subagents/agent-<id>.jsonl`): the id of its parent session's file, when that is served. */
  readonly parent: string | undefined;
  /** A subagent file's title, from its `.meta.json` (`Explore: Read planning task inputs`). */
  readonly title: string | undefined;
  /** CatalogOptions.quietMs. */
  quietMs: number;
  /** When a walk last found it longer than the walk before (a session file being written: live while that goes on). */
  grewAt: number | undefined;
  size: number;
  mtimeMs: number;
  /** Facts of the last read (undefined: not a session, or not read yet). */
  info: SessionInfo | undefined;
  isSession: boolean;
  /** A live log's reading so far: the next scan reads on from `offset` instead of from the start. */
  progress: LogProgress | undefined;
}

/** Where the list's reading of a growing log stopped. */
interface LogProgress {
  readonly reader: EventReader;
  readonly facts: SessionFacts;
  offset: number;
  /** The last bytes read (up to TAIL_BYTES): still there at `offset` when the log was only appended to. */
  tail: Buffer;
}

/** A log's feed, opened on demand. */
interface FileFeed {
  readonly feed: SessionFeed;
  readonly release: () => void;
  /** The log's size and time once the feed had read it to its end: a log changed since is read anew when opened. */
  readAs: FileStamp | undefined;
}

/** What tells a log changed: its size and modification time. */
interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

/** What the server asks of the catalog. */
export interface SessionCatalog {
  /** Every session, newest first (scans the served paths again). */
  list(): Promise<SessionInfo[]>;
  /** The live feed of a session, opened on demand; undefined for an unknown id. */
  feed(id: string): Promise<SessionFeed | undefined>;
  /** Adds a session whose events are pushed in (a run's own). */
  add(feed: SessionFeed): void;
  /**
   * The session logs under the served paths, by real path (scans them again, as `list` does): what `GET /api/search`
   * searches. Sessions beside the files (a run's own, NATS) have no log here and are not searched.
   */
  searchable(): Promise<SearchableFile[]>;
  /** Served paths that do not exist yet, then whether each source beside the files can be read now (`GET /api/sources`). */
  sources(): SourceStatus[];
  /** Stops following every log (and closes the sources). */
  close(): void;
}

/** A served session log as the search index reads it. */
export interface SearchableFile {
  /** The session's id in the API. */
  readonly id: string;
  /** Its real path (symbolic links resolved; under a served path). */
  readonly path: string;
  /** What tells the index it changed: size and modification time as the last walk saw them. */
  readonly size: number;
  readonly mtimeMs: number;
}

/** Folders not walked: nothing an agent log lives in, and possibly huge. */
const SKIPPED_FOLDERS = new Set(["node_modules", ".git"]);
const MAX_DEPTH = 8;
const MAX_FILES = 10_000;
/** Bytes read before deciding a file is no agent log (its dialect is still unknown or `json`). */
const DETECT_BYTES = 256 * 1024;
/** How many of the last bytes read are compared before a growing log is read on from where it stopped. */
const TAIL_BYTES = 16;
/** CatalogOptions.quietMs's default. */
const QUIET_MS = 120_000;

/** Resolves the given paths (one that does not exist yet is looked for at each walk) and returns the catalog over them. */
export async function createCatalog(options: CatalogOptions): Promise<SessionCatalog> {
  const roots: Root[] = [];
  // A path that does not exist yet (a run log folder no run has written to) is looked for again at each walk.
  let waiting: string[] = [];
  for (const path of options.paths) {
    const root = await resolveRoot(path);
    if (root === undefined) waiting.push(path);
    else roots.push(root);
  }
  const files = new Map<string, LogFile>();
  const feeds = new Map<string, FileFeed>();
  const pushed = new Map<string, SessionFeed>();
  const sources = options.sources ?? [];
  // Aborted by close(): the registered runs' streams end with the server.
  const closing = new AbortController();

  // Pages ask for the list every few seconds each: one walk at a time, and none again within a second.
  let scanning: Promise<void> | undefined;
  let scannedAt = 0;
  const scan = (): Promise<void> => {
    if (options.registry !== undefined) followRegisteredRuns(options.registry, options.read.redact === true, pushed, closing.signal);
    if (scanning !== undefined) return scanning;
    if (Date.now() - scannedAt < (options.rescanMs ?? 1000)) return Promise.resolve();
    scanning = walkAll().finally(() => {
      scanning = undefined;
      scannedAt = Date.now();
    });
    return scanning;
  };
  const walkAll = async (): Promise<void> => {
    const found = new Map<string, LogFile>();
    if (waiting.length > 0) {
      const still: string[] = [];
      for (const path of waiting) {
        const root = await resolveRoot(path);
        if (root === undefined) still.push(path);
        else roots.push(root);
      }
      waiting = still;
    }
    for (const root of roots) await walk(root, roots, found);
    for (const file of found.values()) file.quietMs = options.quietMs ?? QUIET_MS;
    for (const [id, file] of found) await refreshFile(id, file, files, feeds, options.read);
    for (const id of files.keys()) if (!found.has(id)) files.delete(id);
  };

  // Viewers of one session arrive together: the first opens its feed, the others wait for that one (one follower,
  // one reader and one encoding per session, whatever the number of viewers).
  const opening = new Map<string, Promise<SessionFeed | undefined>>();
  const openFeed = async (id: string): Promise<SessionFeed | undefined> => {
    const open = feeds.get(id);
    if (open !== undefined) {
      const real = files.get(id)?.real;
      if (!open.feed.isEnded || (real !== undefined && sameStamp(open.readAs, await stat(real).catch(() => undefined)))) return open.feed;
      open.release(); // the log changed after it was read to its end: read it anew
    }
    for (const source of sources) {
      const feed = await source.feed(id);
      if (feed !== undefined) return feed;
    }
    if (!files.has(id)) {
      scannedAt = 0; // a session asked for by id that the last walk did not see: look now
      await scan();
    }
    const file = files.get(id);
    if (file === undefined || !file.isSession) return undefined;
    // The file may have been swapped for a link since the scan: check where it leads now.
    const real = await realpath(file.real).catch(() => undefined);
    if (real === undefined || !isUnder(real, roots)) return undefined;
    const opened = openFileFeed(file, options, () => {
      if (feeds.get(id) === opened) feeds.delete(id);
    });
    feeds.set(id, opened);
    return opened.feed;
  };

  return {
    async list() {
      await scan();
      const infos: SessionInfo[] = [...pushed.values()].map((feed) => feed.info());
      infos.push(...fileInfos(files, (id) => feeds.get(id)?.feed));
      for (const source of sources) infos.push(...source.list());
      return infos.sort((a, b) => (b.start ?? "").localeCompare(a.start ?? ""));
    },
    async feed(id) {
      const own = pushed.get(id);
      if (own !== undefined) return own;
      const open = feeds.get(id);
      if (open !== undefined && !open.feed.isEnded) return open.feed;
      const inFlight = opening.get(id);
      if (inFlight !== undefined) return inFlight;
      const opened = openFeed(id).finally(() => opening.delete(id));
      opening.set(id, opened);
      return opened;
    },
    async searchable() {
      await scan();
      return [...files.values()]
        .filter((file) => file.isSession)
        .map((file) => ({ id: file.id, path: file.real, size: file.size, mtimeMs: file.mtimeMs }));
    },
    add(feed) {
      pushed.set(feed.id, feed);
    },
    sources() {
      const missing = waiting.map(
        (path): SourceStatus => ({ kind: "path", description: path, state: "unavailable", detail: MISSING_PATH }),
      );
      return [...missing, ...sources.map((source) => source.status())];
    },
    close() {
      closing.abort();
      for (const { release } of feeds.values()) release();
      feeds.clear();
      for (const source of sources) source.close();
    },
  };
}

/** Takes a walk's `file` into `files`: read again if it changed (from where the last reading stopped when it only grew). */
async function refreshFile(
  id: string,
  file: LogFile,
  files: Map<string, LogFile>,
  feeds: ReadonlyMap<string, FileFeed>,
  read: CatalogOptions["read"],
): Promise<void> {
  const known = files.get(id);
  if (known !== undefined) file.grewAt = file.size > known.size ? Date.now() : known.grewAt;
  const changed = known === undefined || known.size !== file.size || known.mtimeMs !== file.mtimeMs || known.runEnded !== file.runEnded;
  // A log followed by an open feed is read once, by that feed: the list shows the feed's facts, and the list's own
  // reading resumes from where it stopped once the feed is let go (the log was only appended to meanwhile).
  const followed = feeds.get(id);
  if (known !== undefined && followed !== undefined && !followed.feed.isEnded) {
    file.info = known.info;
    file.isSession = known.isSession;
    file.progress = known.progress;
    files.set(id, file);
    return;
  }
  // A log that stopped growing (a run killed before its summary, a session left) is over once it has been quiet long enough.
  if (changed || (known.info?.live === true && !isLive(file))) {
    // A run log only grows while its run goes on: read on from where the last scan stopped, unless it was rewritten.
    const resumable = known?.progress !== undefined && (await appendedTo(file.real, known.progress)) ? known.progress : undefined;
    await summarize(file, read, resumable);
    files.set(id, file);
    // A feed that read the log to its end shows what the log was: the next open reads it anew.
    const open = feeds.get(id);
    if (open?.feed.isEnded === true && !sameStamp(open.readAs, file)) open.release();
  }
}

/** Streams each newly registered run into a local feed (kept, ended, once its run is over). */
function followRegisteredRuns(dir: string, redact: boolean, feeds: Map<string, SessionFeed>, signal: AbortSignal): void {
  if (signal.aborted) return;
  for (const run of registeredRuns(dir)) if (!feeds.has(run.runId)) feeds.set(run.runId, openRemoteFeed(run, redact, signal));
}

/** A served path: a folder (everything under it) or a file (itself only). */
interface Root {
  readonly given: string;
  readonly real: string;
  readonly folder: boolean;
}

/** Why a served path is listed in `sources()`: it is looked for again at each walk. */
export const MISSING_PATH = "does not exist yet: its sessions are listed once it appears";

/** The path's real path; undefined while it does not exist (looked for again later); any other failure is the caller's. */
async function resolveRoot(path: string): Promise<Root | undefined> {
  try {
    const real = await realpath(path);
    return { given: path, real, folder: (await stat(real)).isDirectory() };
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    const reason = code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? String(cause));
    throw new AgentStreamError("usage", `cannot serve ${path}: ${reason}`, { cause });
  }
}

/** True when `real` is a served file or lies under a served folder. */
function isUnder(real: string, roots: readonly Root[]): boolean {
  return roots.some((root) =>
    root.folder ? real === root.real || real.startsWith(root.real.endsWith(sep) ? root.real : root.real + sep) : real === root.real,
  );
}

/** Finds candidate logs under one root (run logs grouped: one session per run). */
async function walk(root: Root, roots: readonly Root[], found: Map<string, LogFile>): Promise<void> {
  if (!root.folder) {
    await addFile(root.given, root.real, undefined, found, undefined);
    return;
  }
  const visit = async (shown: string, depth: number): Promise<void> => {
    const entries = await readdir(shown, { withFileTypes: true }).catch(() => []);
    const names = new Set(entries.map((e) => e.name));
    for (const entry of entries) {
      if (found.size >= MAX_FILES) return;
      if (entry.name.startsWith(".") || SKIPPED_FOLDERS.has(entry.name) || isRunLogCompanion(entry.name, names)) continue;
      const path = join(shown, entry.name);
      const real = await realpath(path).catch(() => undefined);
      if (real === undefined || !isUnder(real, roots)) continue; // a link out of the served paths
      const stats = await stat(real).catch(() => undefined);
      if (stats?.isDirectory() === true) {
        if (depth < MAX_DEPTH && !entry.isSymbolicLink()) await visit(path, depth + 1);
      } else if (stats?.isFile() === true) {
        const run = runIdOf(entry.name);
        const runSummary = run !== undefined && names.has(`${run}.raw`) ? join(shown, `${run}.summary.json`) : undefined;
        await addFile(path, real, runSummary, found, await subagentOf(shown, entry.name));
      }
    }
  };
  await visit(root.given, 0);
}

async function addFile(
  shown: string,
  real: string,
  runSummary: string | undefined,
  found: Map<string, LogFile>,
  subagent: Subagent | undefined,
): Promise<void> {
  const stats = await stat(real).catch(() => undefined);
  if (stats === undefined || stats.size === 0) return;
  const id = fileId(real);
  found.set(id, {
    id,
    shown,
    real,
    runSummary,
    runEnded: runSummary !== undefined && existsSync(runSummary),
    parent: subagent?.parent,
    title: subagent?.title,
    quietMs: QUIET_MS,
    grewAt: undefined,
    size: stats.size,
    mtimeMs: stats.mtimeMs,
    info: undefined,
    isSession: false,
    progress: undefined,
  });
}

/** `<run>.events.ndjson` → `<run>`. */
function runIdOf(name: string): string | undefined {
  return name.endsWith(".events.ndjson") ? name.slice(0, -".events.ndjson".length) : undefined;
}

/** The other files of a run's logs (raw, stderr, oneshot, summary): its events file stands for the run. */
function isRunLogCompanion(name: string, siblings: ReadonlySet<string>): boolean {
  const match = /^(.*?)(\.raw|\.stderr|-oneshot-log\.json|\.summary\.json)$/.exec(name);
  return match !== null && siblings.has(`${match[1]}.events.ndjson`);
}

/**
 * True while a log is being written: a run log while its summary file is not written yet, any other log once
 * it was seen growing while served; either only while it was written within `quietMs` (a run killed by
 * SIGKILL never writes its summary, a session left open in another terminal stops growing).
 */
function isLive(file: LogFile): boolean {
  if (file.runSummary !== undefined ? existsSync(file.runSummary) : file.grewAt === undefined) return false;
  const written = statSync(file.real, { throwIfNoEntry: false })?.mtimeMs;
  return written !== undefined && Date.now() - written < file.quietMs;
}

/** A log's id in the API: a hash of its real path (paths never appear in a URL). */
function fileId(real: string): string {
  return createHash("sha256").update(real).digest("base64url").slice(0, 16);
}

/** What a subagent file says of itself beyond its events. */
interface Subagent {
  readonly parent: string | undefined;
  readonly title: string | undefined;
}

/**
 * Claude Code writes each subagent of `<project>/<session>.jsonl` to `<project>/<session>/subagents/agent-<id>.jsonl`,
 * beside `agent-<id>.meta.json` (`{"agentType":"Explore","description":…}`): such a file is listed under its parent.
 */
async function subagentOf(folder: string, name: string): Promise<Subagent | undefined> {
  if (basename(folder) !== "subagents" || !/^agent-.+\.jsonl$/.test(name)) return undefined;
  const parentReal = await realpath(`${dirname(folder)}.jsonl`).catch(() => undefined);
  return {
    parent: parentReal === undefined ? undefined : fileId(parentReal),
    title: await metaTitle(join(folder, name.replace(/\.jsonl$/, ".meta.json"))),
  };
}

/** The wire shape of a subagent's `.meta.json` (every field may be missing). */
interface SubagentMeta {
  readonly agentType?: unknown;
  readonly description?: unknown;
}

/** `Explore: Read planning task inputs`, from a subagent's meta file; undefined when there is none or it says nothing. */
async function metaTitle(path: string): Promise<string | undefined> {
  const stats = await stat(path).catch(() => undefined);
  if (stats === undefined || !stats.isFile() || stats.size > 64 * 1024) return undefined;
  try {
    const meta = JSON.parse(await readFile(path, "utf8")) as SubagentMeta | null;
    const parts = [meta?.agentType, meta?.description].filter((part): part is string => typeof part === "string" && part.trim() !== "");
    return oneLine(parts.join(": "));
  } catch {
    return undefined;
  }
}

/** The files' entries: each subagent file under its parent's (in the order they started), the others at the top. */
function fileInfos(files: ReadonlyMap<string, LogFile>, openFeed: (id: string) => SessionFeed | undefined): SessionInfo[] {
  const infoOf = (file: LogFile): SessionInfo => openFeed(file.id)?.info() ?? (file.info as SessionInfo);
  const children = new Map<string, SessionInfo[]>();
  const top: LogFile[] = [];
  for (const file of files.values()) {
    if (!file.isSession) continue;
    if (file.parent !== undefined && files.get(file.parent)?.isSession === true) {
      const siblings = children.get(file.parent) ?? [];
      siblings.push(infoOf(file));
      children.set(file.parent, siblings);
    } else top.push(file);
  }
  return top.map((file) => {
    const subagents = (children.get(file.id) ?? []).sort((a, b) => (a.start ?? "").localeCompare(b.start ?? ""));
    return subagents.length === 0 ? infoOf(file) : { ...infoOf(file), subagents };
  });
}

/**
 * Reads a log for the list: is it an agent session, and its facts. A live log is read from
 * where the last scan stopped (`progress`) and its reader is kept open for the next scan; any
 * other log is read whole and its reader ended.
 */
async function summarize(file: LogFile, read: CatalogOptions["read"], progress: LogProgress | undefined): Promise<void> {
  const live = isLive(file);
  const state = progress ?? startReading(file, read);
  let readable = true;
  try {
    const chunks = createReadStream(file.real, { start: state.offset, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>;
    for await (const chunk of chunks) {
      state.reader.feed(chunk);
      state.offset += chunk.length;
      state.tail = keepTail(state.tail, chunk);
      if (state.offset >= DETECT_BYTES && (state.reader.dialect === undefined || state.reader.dialect === "json")) {
        readable = false;
        break;
      }
    }
    if (readable && !live) state.reader.end();
  } catch {
    readable = false; // gone or unreadable since the scan: not listed
  }
  file.isSession = readable && state.reader.dialect !== undefined && state.reader.dialect !== "json";
  const info = file.isSession ? state.facts.info(file.id, file.shown, live) : undefined;
  file.info = info === undefined ? undefined : { ...info, title: file.title ?? info.title };
  file.progress = readable && live ? state : undefined;
}

function startReading(file: LogFile, read: CatalogOptions["read"]): LogProgress {
  const facts = new SessionFacts();
  const reader = createEventReader({ onEvent: (event) => facts.add(event) }, { ...read, file: file.shown, onIssue: () => {} });
  facts.stats = () => reader.stats;
  facts.dialect = () => reader.dialect;
  return { reader, facts, offset: 0, tail: Buffer.alloc(0) };
}

/** The last TAIL_BYTES of what was read, after `chunk`. */
function keepTail(tail: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= TAIL_BYTES) return Buffer.from(chunk.subarray(chunk.length - TAIL_BYTES));
  const joined = Buffer.concat([tail, chunk]);
  return joined.subarray(Math.max(0, joined.length - TAIL_BYTES));
}

/** True when the log still holds what was read up to `progress.offset` (it was only appended to since). */
async function appendedTo(real: string, progress: LogProgress): Promise<boolean> {
  const { offset, tail } = progress;
  if (tail.length === 0) return offset === 0;
  const handle = await open(real, "r").catch(() => undefined);
  if (handle === undefined) return false;
  try {
    const now = Buffer.alloc(tail.length);
    const { bytesRead } = await handle.read(now, 0, tail.length, offset - tail.length);
    return bytesRead === tail.length && now.equals(tail);
  } finally {
    await handle.close();
  }
}

function sameStamp(read: FileStamp | undefined, now: FileStamp | undefined): boolean {
  return read !== undefined && now !== undefined && read.size === now.size && read.mtimeMs === now.mtimeMs;
}

/** Follows a log into a feed; the feed is released (the follow stopped) once nobody has watched it for a while. */
function openFileFeed(file: LogFile, options: CatalogOptions, forget: () => void): FileFeed {
  const read = { ...options.read, file: basename(file.shown), onIssue: () => {} };
  const feed = new SessionFeed(file.id, {
    file: file.shown,
    live: isLive(file),
    ...(file.title === undefined ? {} : { title: file.title }),
    ...(options.feedBytes === undefined ? {} : { maxBytes: options.feedBytes }),
    reread: () => rereadLog(file.real, read),
  });
  const stop = new AbortController();
  const reader = createEventReader({ onEvent: (event) => feed.push(event) }, read);
  feed.facts.stats = () => reader.stats;
  feed.facts.dialect = () => reader.dialect;
  const release = (): void => {
    stop.abort();
    stopIdleCheck();
    forget();
  };
  const stopIdleCheck = releaseWhenUnwatched(feed, options.releaseMs ?? 60_000, release);
  const opened: FileFeed = { feed, release, readAs: undefined };
  void (async () => {
    try {
      const chunks = followFile(file.real, { finished: () => !isLive(file), signal: stop.signal, pollMs: options.pollMs ?? 250 });
      for await (const chunk of chunks) {
        // A run log is only appended to; one truncated or replaced is not that run's any more: what was read stays
        // shown to its viewers, and the feed is let go at once, so the next open reads the file anew.
        if (isFollowRestart(chunk)) {
          release();
          break;
        }
        reader.feed(chunk);
      }
      if (!stop.signal.aborted) {
        reader.end();
        opened.readAs = await stat(file.real).catch(() => undefined);
      }
    } catch {
      // The log vanished while followed: what was read stays shown.
    } finally {
      feed.end();
    }
  })();
  return opened;
}

/**
 * A log's events read again from its start, a chunk at a time, by a reader of the same options as its feed's (the
 * same events, numbered and redacted the same): what a viewer behind the feed's kept frames is sent.
 */
async function* rereadLog(real: string, read: ReadOptions): AsyncGenerator<AgentEvent[]> {
  let batch: AgentEvent[] = [];
  const reader = createEventReader({ onEvent: (event) => batch.push(event) }, read);
  for await (const chunk of createReadStream(real, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    reader.feed(chunk);
    if (batch.length === 0) continue;
    yield batch;
    batch = [];
  }
}
