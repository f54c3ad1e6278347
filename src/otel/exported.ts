/**
 * What `agentstream otlp` already exported, so each saved session goes once: a small JSON file under the state
 * folder ($XDG_STATE_HOME/agentstream/otlp-exported.json, else ~/.local/state/agentstream/), keyed by endpoint and
 * file, with the file's size and modification time when it was sent. A file that changed since (a session that went
 * on) is sent again, with the same span ids (docs/otel.md). The file is checked: a regular file of ours (not a link),
 * of the expected shape; anything else is said and not trusted.
 */
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { AgentStreamError } from "../errors.ts";

interface ExportedFile {
  readonly size: number;
  readonly mtimeMs: number;
}

interface StateFile {
  readonly v: 1;
  readonly exported: Record<string, ExportedFile>;
}

/** The state file's path from the environment. */
export function exportedStatePath(env: Readonly<Record<string, string | undefined>>): string {
  const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value === "" ? undefined : value);
  const state = nonEmpty(env.XDG_STATE_HOME) ?? join(nonEmpty(env.HOME) ?? homedir(), ".local", "state");
  return join(state, "agentstream", "otlp-exported.json");
}

export class ExportedSessions {
  private readonly path: string;
  private readonly exported: Record<string, ExportedFile>;
  /** A sentence about a state file that could not be used (then every session counts as new), for the user. */
  readonly problem: string | undefined;

  constructor(path: string) {
    this.path = path;
    const loaded = load(path);
    this.exported = loaded.exported;
    this.problem = loaded.problem;
  }

  /** True when `file` (as it is now) was already sent to `endpoint`. */
  has(endpoint: string, file: string, now: ExportedFile): boolean {
    const known = this.exported[keyOf(endpoint, file)];
    return known !== undefined && known.size === now.size && known.mtimeMs === now.mtimeMs;
  }

  /** Remembers that `file` was sent to `endpoint`; written at once, so an interrupted export keeps what went. */
  add(endpoint: string, file: string, now: ExportedFile): void {
    this.exported[keyOf(endpoint, file)] = { size: now.size, mtimeMs: now.mtimeMs };
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    const state: StateFile = { v: 1, exported: this.exported };
    writeFileSync(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}

function keyOf(endpoint: string, file: string): string {
  return `${endpoint} ${file}`;
}

function load(path: string): { exported: Record<string, ExportedFile>; problem: string | undefined } {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return { exported: {}, problem: undefined };
  }
  if (!stat.isFile())
    throw new AgentStreamError("io", `${path} is not a regular file: move it away (it records which sessions were exported)`);
  try {
    const value: unknown = JSON.parse(readFileSync(path, "utf8"));
    return { exported: checked(value), problem: undefined };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { exported: {}, problem: `${path} could not be read (${why}): every session counts as not exported yet` };
  }
}

function checked(value: unknown): Record<string, ExportedFile> {
  if (typeof value !== "object" || value === null || (value as { v?: unknown }).v !== 1) throw new Error("not a version 1 state file");
  const exported = (value as { exported?: unknown }).exported;
  if (typeof exported !== "object" || exported === null || Array.isArray(exported)) throw new Error("no exported map");
  const out: Record<string, ExportedFile> = Object.create(null) as Record<string, ExportedFile>;
  for (const [key, entry] of Object.entries(exported)) {
    const { size, mtimeMs } = (entry ?? {}) as { size?: unknown; mtimeMs?: unknown };
    if (typeof size === "number" && typeof mtimeMs === "number") out[key] = { size, mtimeMs };
  }
  return out;
}
