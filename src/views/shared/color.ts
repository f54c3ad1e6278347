/**
 * Our own styling, by role. `full` uses colours and attributes (bold, dim, italic); `basic` uses
 * colours and bold only (CI log viewers often drop dim and italic), with grey for dim; `none`
 * writes no escape sequence at all. Styles wrap text that is already sanitised, so ours are the
 * only escape sequences on the screen.
 */
import type { RenderMode } from "./types.ts";

/** What a piece of the view is, for its colour. */
export type Role =
  | "answer"
  | "answerMark"
  | "reasoning"
  | "user"
  | "system"
  | "tool"
  | "toolMark"
  | "arg"
  | "output"
  | "gutter"
  | "ok"
  | "okStrong"
  | "error"
  | "errorStrong"
  | "warning"
  | "metric"
  | "meta"
  | "header"
  | "diffAdd"
  | "diffDel"
  | "diffHunk"
  | "plain";

const FULL: Record<Role, string> = {
  answer: "1;32",
  answerMark: "1;32",
  reasoning: "2;36",
  user: "1",
  system: "2",
  tool: "1",
  toolMark: "33",
  arg: "36",
  output: "2",
  gutter: "2",
  ok: "32",
  okStrong: "1;32",
  error: "31",
  errorStrong: "1;31",
  warning: "33",
  metric: "2;3",
  meta: "2",
  header: "1",
  diffAdd: "32",
  diffDel: "31",
  diffHunk: "2;36",
  plain: "",
};

const BASIC: Record<Role, string> = {
  ...FULL,
  reasoning: "36",
  system: "90",
  output: "90",
  gutter: "90",
  metric: "37",
  meta: "90",
  diffHunk: "36",
};

/** The SGR parameters of `role` in `mode`, or "" for none. */
export function sgrOf(mode: RenderMode, role: Role): string {
  if (mode === "none") return "";
  return (mode === "full" ? FULL : BASIC)[role];
}

/** `text` wrapped in the style of `role` (unchanged in mode none, or when it is empty). */
export function paint(mode: RenderMode, role: Role, text: string): string {
  const sgr = sgrOf(mode, role);
  return sgr === "" || text === "" ? text : `\x1b[${sgr}m${text}\x1b[0m`;
}

/** An OSC 8 hyperlink we build ourselves (full mode only), the URL itself as the text. */
export function hyperlink(mode: RenderMode, url: string, text: string = url): string {
  return mode === "full" ? `\x1b]8;;${url}\x1b\\${text}\x1b]8;;\x1b\\` : text;
}
