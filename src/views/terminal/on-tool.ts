/** Tool calls, file changes and plans. */
import { stringifyRecord } from "../../framing/stringify.ts";
import { type EventOf, isNoResult } from "../../model/events.ts";
import { diffStat, formatDuration, relativePath } from "../shared/format.ts";
import { begin, emitRows, indentOf, line, note, oneLine, releaseAfterTool, settle, style } from "./screen.ts";
import { cwdOf, depthOf, ensureSession, sessionOf } from "./sessions.ts";
import type { RenderState, ToolState } from "./state.ts";
import { referTo, showHeader, showOutput, showPlan, stripDiffHeader } from "./tools.ts";

export function onToolStarted(r: RenderState, event: EventOf<"tool.started">): void {
  const tool: ToolState = {
    id: event.toolCallId,
    name: event.name,
    kind: event.kind,
    depth: depthOf(r, event),
    sessionId: event.sessionId,
    input: event.input,
    inputParts: [],
    headerShown: false,
    description: event.description,
    progress: [],
  };
  r.tools.set(event.toolCallId, tool);
  if (event.input === undefined) r.waitingHeaders.push(tool);
  else showHeader(r, tool);
}

export function onToolInputDelta(r: RenderState, event: EventOf<"tool.input.delta">): void {
  const tool = r.tools.get(event.toolCallId);
  if (tool !== undefined && !tool.headerShown) tool.inputParts.push(event.text);
}

export function onToolProgress(r: RenderState, event: EventOf<"tool.progress">): void {
  const tool = r.tools.get(event.toolCallId);
  if (tool !== undefined && event.output !== undefined) tool.progress.push(event.output);
  if (r.verbose && event.status !== undefined && event.status !== "") {
    const depth = (tool?.depth ?? depthOf(r, event)) + 1;
    note(r, () =>
      line(
        r,
        depth,
        style(r, "meta", `⋯ ${oneLine(event.status ?? "")}${event.elapsedMs !== undefined ? ` · ${formatDuration(event.elapsedMs)}` : ""}`),
      ),
    );
  }
}

export function onToolCompleted(r: RenderState, event: EventOf<"tool.completed">): void {
  let tool = r.tools.get(event.toolCallId);
  if (tool === undefined) {
    tool = {
      id: event.toolCallId,
      name: event.name ?? "tool",
      kind: undefined,
      depth: depthOf(r, event),
      sessionId: event.sessionId,
      input: undefined,
      inputParts: [],
      headerShown: true,
      description: undefined,
      progress: [],
    };
  } else if (!tool.headerShown) showHeader(r, tool);
  r.tools.delete(event.toolCallId);
  if (isNoResult(event)) {
    // The input ended with the call still open: it did not fail, it has no result.
    referTo(r, tool);
    emitRows(r, `${indentOf(tool.depth)}  ${style(r, "meta", "◌ no result")}\n`);
    releaseAfterTool(r);
    return;
  }
  const output =
    event.output ??
    (event.result !== undefined && event.result !== null
      ? typeof event.result === "string"
        ? event.result
        : stringifyRecord(event.result, 2)
      : tool.progress.join(""));
  const boilerplate = tool.kind === "file_edit" || tool.kind === "file_write" || tool.kind === "todo";
  const showText = output.trim() !== "" && (event.isError ? !r.quiet : r.verbose || (!r.quiet && !boilerplate));
  if (!showText && !event.isError) {
    releaseAfterTool(r);
    return;
  }
  referTo(r, tool);
  if (showText) showOutput(r, tool.depth, output, event.isError ? "error" : "output");
  if (event.isError) {
    const status = [
      event.exitCode !== undefined ? `exit ${event.exitCode}` : "failed",
      event.durationMs !== undefined ? formatDuration(event.durationMs) : "",
    ]
      .filter(Boolean)
      .join(" · ");
    emitRows(r, `${indentOf(tool.depth)}  ${style(r, "error", `✗ ${status}`)}\n`);
  }
  releaseAfterTool(r);
}

export function onFileChanged(r: RenderState, event: EventOf<"file.changed">): void {
  if (r.quiet) return;
  const tool = event.toolCallId !== undefined ? r.tools.get(event.toolCallId) : undefined;
  const depth = tool?.depth ?? depthOf(r, event);
  const cwd = cwdOf(r, event);
  if (r.lastItem !== `tool:${event.toolCallId ?? ""}` || event.toolCallId === undefined)
    begin(r, "tools", depth, `tool:${event.toolCallId ?? `files:${event.seq}`}`);
  else settle(r);
  for (const change of event.changes) {
    const stat = change.diff !== undefined ? diffStat(change.diff) : undefined;
    const target =
      change.kind === "rename" && change.newPath !== undefined
        ? `${relativePath(change.path, cwd)} → ${relativePath(change.newPath, cwd)}`
        : relativePath(change.path, cwd);
    const counts = stat !== undefined ? ` ${style(r, "diffAdd", `+${stat.added}`)} ${style(r, "diffDel", `−${stat.removed}`)}` : "";
    const failed = event.status === "error" ? style(r, "error", " (failed)") : "";
    emitRows(r, `${indentOf(depth)}  ${style(r, "toolMark", "✎")} ${change.kind} ${style(r, "arg", oneLine(target))}${counts}${failed}\n`);
    if (change.diff !== undefined && change.diff.trim() !== "") showOutput(r, depth + 1, stripDiffHeader(change.diff), "output", true);
  }
}

export function onPlanUpdated(r: RenderState, event: EventOf<"plan.updated">): void {
  const session = sessionOf(r, event) ?? ensureSession(r, event);
  const previous = session.plan;
  session.plan = event.items;
  if (r.quiet) return;
  const depth = depthOf(r, event);
  if (r.lastItem.startsWith("tool:") && r.lastGroup?.depth === depth) settle(r);
  else begin(r, "tools", depth, `plan:${event.seq}`);
  showPlan(r, depth, event.items, previous);
}
