/**
 * Pure formatting for every view: metric lines, a tool call's argument (fitted for the terminal,
 * whole for transcripts), durations, token counts and cost. The one place durations, token counts
 * and costs are formatted: the terminal, the text and markdown writers and the CLI use these.
 * Returns raw (unsanitised) text.
 */
import type { JsonValue, Usage } from "../../model/events.ts";
import { LosslessInteger, isJsonObject } from "../../model/lossless-integer.ts";
import { stringifyRecord } from "../../framing/stringify.ts";

/**
 * A metric as one line. Flame metrics (a `temperature` with `k`, `state` or `reflex_score`) follow
 * the Witness Forge display rule, "Effective Temperature: 0.650 (state=sync, k=0.013, reflex=0.720)";
 * any other metric is "name: label (key=value, ...)". Every value is shown: metrics are never dropped.
 */
export function formatMetric(name: string, text: string | undefined, values: Record<string, unknown>): string {
  if (typeof values.temperature === "number" && ("k" in values || "state" in values || "reflex_score" in values)) {
    const extras: string[] = [];
    if (values.state !== undefined) extras.push(`state=${scalar(values.state)}`);
    if (values.k !== undefined) extras.push(`k=${fixed3(values.k)}`);
    if (values.reflex_score !== undefined) extras.push(`reflex=${fixed3(values.reflex_score)}`);
    for (const [key, value] of flatten(values)) {
      if (key !== "temperature" && key !== "state" && key !== "k" && key !== "reflex_score") extras.push(`${key}=${value}`);
    }
    return `Effective Temperature: ${fixed3(values.temperature)}${extras.length > 0 ? ` (${extras.join(", ")})` : ""}`;
  }
  const pairs = flatten(values).map(([key, value]) => `${key}=${value}`);
  const label = text !== undefined && text !== "" && text !== name ? `${name}: ${text}` : name;
  return `${label}${pairs.length > 0 ? ` (${pairs.join(", ")})` : ""}`;
}

function fixed3(value: unknown): string {
  return typeof value === "number" ? value.toFixed(3) : scalar(value);
}

/**
 * A number as written (integers whole, others to 3 decimals), a plain string bare, a short list of
 * plain values as compact JSON; a list or object with anything nested is counted, never dumped.
 */
function scalar(value: unknown): string {
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(3);
  if (typeof value === "string") return /^[^\s,=()"]+$/.test(value) ? value : JSON.stringify(value);
  if (LosslessInteger.is(value)) return value.source;
  if (Array.isArray(value)) {
    const plain = value.every((v) => v === null || typeof v !== "object");
    return plain && value.length <= 8 ? JSON.stringify(value) : `${value.length} item${value.length === 1 ? "" : "s"}`;
  }
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).length;
    return `${keys} field${keys === 1 ? "" : "s"}`;
  }
  return JSON.stringify(value) ?? String(value);
}

/** Nested objects become dotted keys (two levels), so `usage={"output_tokens":96}` reads `usage.output_tokens=96`. */
function flatten(values: Record<string, unknown>, prefix = "", depth = 0): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(values)) {
    if (
      value !== null &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      !LosslessInteger.is(value) &&
      depth < 2 &&
      Object.keys(value).length > 0
    ) {
      out.push(...flatten(value as Record<string, unknown>, `${prefix}${key}.`, depth + 1));
    } else out.push([`${prefix}${key}`, scalar(value)]);
  }
  return out;
}

const SHELLS = new Set(["bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash", "pwsh", "powershell"]);

/**
 * The argument worth showing for a tool call: the command, the file path, the query, the URL, the
 * subagent's task. Paths under `cwd` are shown relative to it. "" when there is none.
 */
export function keyArgument(input: JsonValue | undefined, cwd?: string, kind?: string): string {
  if (input === undefined || input === null) return "";
  if (typeof input === "string") return input;
  if (!isJsonObject(input)) return "";
  const rel = (path: string): string => relativePath(path, cwd);
  const str = (key: string): string | undefined => {
    const value = input[key];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const command = input.command ?? input.cmd ?? input.argv;
  if (typeof command === "string" && command !== "") return unwrapShell(command);
  if (Array.isArray(command) && command.length > 0 && command.every((part) => typeof part === "string")) {
    const argv = command as string[];
    // ["bash", "-lc", "npm test"] is the shell wrapper Codex uses: show the script.
    if (argv.length === 3 && SHELLS.has(argv[0] as string) && (argv[1] === "-lc" || argv[1] === "-c")) return argv[2] as string;
    return argv.map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part))).join(" ");
  }
  if (kind === "subagent") {
    const task = str("description") ?? str("prompt");
    const type = str("subagent_type");
    if (task !== undefined) return type !== undefined && type !== "general-purpose" ? `${task} (${type})` : task;
  }
  const pattern = str("pattern");
  if (pattern !== undefined) {
    const where = str("path") ?? str("glob");
    return where !== undefined ? `${pattern} in ${rel(where)}` : pattern;
  }
  for (const key of ["file_path", "absolute_path", "filePath", "notebook_path", "path", "file"]) {
    const value = str(key);
    if (value !== undefined) return rel(value);
  }
  for (const key of ["query", "url", "description", "subject", "title", "skill", "prompt", "bash_id", "shell_id", "taskId", "name"]) {
    const value = str(key);
    if (value !== undefined) return value;
  }
  const changes = input.changes;
  if (Array.isArray(changes)) {
    const paths = changes.map((c) => (isJsonObject(c) && typeof c.path === "string" ? rel(c.path) : "")).filter(Boolean);
    if (paths.length > 0) return paths.join(", ");
  } else if (changes !== null && typeof changes === "object" && changes !== undefined) {
    const paths = Object.keys(changes).map(rel);
    if (paths.length > 0) return paths.join(", ");
  }
  const todos = input.todos ?? input.items;
  if (Array.isArray(todos)) return `${todos.length} item${todos.length === 1 ? "" : "s"}`;
  return "";
}

const WHOLE_ARGUMENT_KEYS = [
  "command",
  "cmd",
  "file_path",
  "path",
  "filePath",
  "absolute_path",
  "notebook_path",
  "pattern",
  "query",
  "url",
  "description",
  "prompt",
] as const;

/** Longest compact-JSON rendering of arguments that have no key argument. */
const MAX_JSON_ARGUMENT = 200;

/**
 * The argument worth showing for a tool call in a transcript, whole (the terminal's `keyArgument` fits it to a
 * row): the command, the file, the query, the paths of a patch, or else the arguments as compact JSON cut at 200
 * characters; `""` when there are none.
 */
export function wholeArgument(input: JsonValue | undefined): string {
  if (typeof input === "string") return input;
  if (typeof input !== "object" || input === null) return "";
  if (Array.isArray(input)) return input.length === 0 ? "" : compactJson(input);
  if (!isJsonObject(input)) return input.source;
  for (const key of WHOLE_ARGUMENT_KEYS) {
    const value = input[key];
    if (typeof value === "string" && value !== "") return value;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string")) return value.join(" ");
  }
  const changes = input.changes;
  if (Array.isArray(changes)) {
    const paths = changes
      .map((c) => (isJsonObject(c) && typeof c.path === "string" ? c.path : undefined))
      .filter((p): p is string => p !== undefined);
    if (paths.length > 0) return paths.join(", ");
  }
  return Object.keys(input).length === 0 ? "" : compactJson(input);
}

function compactJson(value: JsonValue): string {
  const text = stringifyRecord(value);
  return text.length > MAX_JSON_ARGUMENT ? `${text.slice(0, MAX_JSON_ARGUMENT - 1)}…` : text;
}

/** `/bin/bash -lc "npm test"` (the wrapper Codex reports) as `npm test`. */
function unwrapShell(command: string): string {
  const match = /^(?:\S*\/)?(?:ba|z)?sh -l?c (["'])([\s\S]*)\1$/.exec(command);
  if (match === null) return command;
  const script = match[2] as string;
  return match[1] === '"' ? script.replace(/\\(["\\$`])/g, "$1") : script;
}

/** `path` relative to `cwd` when it lies inside it. */
export function relativePath(path: string, cwd: string | undefined): string {
  if (cwd === undefined || cwd === "" || cwd === "/") return path;
  const base = cwd.endsWith("/") ? cwd : `${cwd}/`;
  if (path === cwd || path === base) return ".";
  return path.startsWith(base) && path.length > base.length ? path.slice(base.length) : path;
}

/** 850ms, 18.7s, 2m 05s, 1h 02m. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** 399, 2.9k, 64.0k, 1.25M. */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/**
 * A cost in dollars, rounded for people: $0.0542, $1.23, and two significant digits below a
 * hundredth of a cent ($0.000012), never the float's noise (0.054201000000000006).
 */
export function formatCost(usd: number, estimated = false): string {
  // An estimate from the price table (no cost in the log) reads `~$2.39` in every view: one rule (docs/usage.md).
  if (estimated) return `~${formatCost(usd)}`;
  if (usd === 0) return "$0.00";
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd >= 0.0001) return `$${usd.toFixed(4)}`;
  return `$${Number(usd.toPrecision(2)).toFixed(Math.max(4, 1 - Math.floor(Math.log10(usd))))}`;
}

/** "33 input, 399 output, 64006 cache read": exact counts in words, for transcripts (only the figures the agent reported); `""` when none. */
export function formatTokenTotals(usage: Usage): string {
  const parts: [number | null, string][] = [
    [usage.inputTokens, "input"],
    [usage.outputTokens, "output"],
    [usage.cacheReadTokens, "cache read"],
    [usage.cacheWriteTokens, "cache write"],
    [usage.reasoningTokens, "reasoning"],
  ];
  return parts
    .filter(([n]) => n !== null)
    .map(([n, label]) => `${n} ${label}`)
    .join(", ");
}

/** "33 in · 399 out · cache 64.0k read, 2.9k write · 120 reasoning": only what the agent reported. */
export function formatUsage(usage: Usage): string {
  const parts: string[] = [];
  if (usage.inputTokens !== null) parts.push(`${formatCount(usage.inputTokens)} in`);
  if (usage.outputTokens !== null) parts.push(`${formatCount(usage.outputTokens)} out`);
  const cache = [
    usage.cacheReadTokens !== null && usage.cacheReadTokens > 0 ? `${formatCount(usage.cacheReadTokens)} read` : "",
    usage.cacheWriteTokens !== null && usage.cacheWriteTokens > 0 ? `${formatCount(usage.cacheWriteTokens)} write` : "",
  ].filter(Boolean);
  if (cache.length > 0) parts.push(`cache ${cache.join(", ")}`);
  if (usage.reasoningTokens !== null && usage.reasoningTokens > 0) parts.push(`${formatCount(usage.reasoningTokens)} reasoning`);
  return parts.length > 0 ? `tokens ${parts.join(" · ")}` : "";
}

/** An RFC 3339 time as "2026-11-18 11:06 UTC" (no clock, no time zone lookup). */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Adds and subtracts line counts of a unified diff (or of new content, all added). */
export function diffStat(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  if (/^<{5,9} (?:SEARCH|ORIGINAL)$/m.test(diff)) return searchReplaceStat(diff);
  const isUnified = /^(---|\+\+\+|@@) /m.test(diff);
  if (!isUnified) return { added: diff === "" ? 0 : diff.replace(/\n$/, "").split("\n").length, removed: 0 };
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("+")) added++;
    else if (line.startsWith("-")) removed++;
  }
  return { added, removed };
}

/**
 * Aider's SEARCH/REPLACE (and older ORIGINAL/UPDATED) blocks: the search side is removed, the
 * replace side added; the conflict markers themselves are not lines of code.
 */
function searchReplaceStat(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let side: "search" | "replace" | undefined;
  for (const line of diff.split("\n")) {
    const t = line.trim();
    if (/^<{5,9} (?:SEARCH|ORIGINAL)$/.test(t)) side = "search";
    else if (/^={5,9}$/.test(t) && side === "search") side = "replace";
    else if (/^>{5,9} (?:REPLACE|UPDATED)$/.test(t)) side = undefined;
    else if (side === "search" && t !== "") removed++;
    else if (side === "replace" && t !== "") added++;
  }
  return { added, removed };
}
