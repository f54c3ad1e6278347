/** File changes as diffs: a unified diff's lines coloured by their first character, new content all added. */
import type { FileChange } from "../../model/events.ts";
import { diffStat, relativePath } from "../shared/format.ts";
import { el } from "./dom.ts";
import { longText, visibleLine } from "./text.ts";

/** Fills `into` with the diff's lines, each a span classed by what it is (+, -, @@, context). */
function renderDiffLines(text: string, into: HTMLElement, allAdded: boolean): void {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    const kind = allAdded
      ? "add"
      : line.startsWith("+")
        ? "add"
        : line.startsWith("-")
          ? "del"
          : line.startsWith("@@")
            ? "hunk"
            : /^<{5,9} |^={5,9}$|^>{5,9} /.test(line)
              ? "hunk"
              : "ctx";
    into.append(el("span", { class: `as-diff-${kind}`, text: `${line}\n` }));
  }
}

/** One changed file: its kind, path (relative to the session's directory), +/- counts and the diff. */
export function fileChangeBlock(
  change: FileChange,
  cwd: string | undefined,
  omittedChars: number | undefined,
  failed: boolean,
): HTMLElement {
  const target =
    change.kind === "rename" && change.newPath !== undefined
      ? `${relativePath(change.path, cwd)} → ${relativePath(change.newPath, cwd)}`
      : relativePath(change.path, cwd);
  const head = el("div", { class: "as-file-head" }, [
    el("span", { class: `as-file-kind as-file-${change.kind}`, text: change.kind }),
    el("bdi", { class: "as-path", text: visibleLine(target), attrs: { dir: "auto" } }),
  ]);
  if (change.diff !== undefined) {
    const stat = diffStat(change.diff);
    head.append(
      el("span", { class: "as-diff-add", text: ` +${stat.added}` }),
      el("span", { class: "as-diff-del", text: ` −${stat.removed}` }),
    );
  }
  if (failed) head.append(el("span", { class: "as-badge as-badge-error", text: "failed" }));
  const block = el("div", { class: "as-file" }, [head]);
  if (change.diff !== undefined && change.diff.trim() !== "") {
    const body = change.diff.replace(/^(?:---[^\n]*\n\+\+\+[^\n]*\n)/, "");
    const unified = /^(---|\+\+\+|@@) /m.test(change.diff) || /^<{5,9} (?:SEARCH|ORIGINAL)$/m.test(change.diff);
    const options = omittedChars === undefined ? {} : { omittedChars };
    block.append(longText(body, { class: "as-diff", render: (t, into) => renderDiffLines(t, into, !unified), ...options }));
  }
  return block;
}
