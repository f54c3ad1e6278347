/** Word wrapping to a terminal width (the renderer's rows, the CLI's help and summary). */
import { displayWidth, ESCAPE, splitAtWidth, visibleWidth } from "./width.ts";

/**
 * One line of text wrapped at word boundaries to rows of `width` columns: the first row starts
 * at column `start`, every further row with `hang` (its indent). The line's own leading white
 * space is kept as part of the hang, so an indented list item stays indented. A word wider than
 * a row is broken. No row ends in spaces. Escape sequences take no columns and are not split.
 */
export function wrapLine(text: string, width: number, start: number, hang: string): string {
  if (start + visibleWidth(text) <= width) return text;
  const lead = /^[ \t]*/.exec(text.replace(ESCAPE, ""))?.[0] ?? "";
  const hangText = hang + (lead.length < (width - hang.length) / 2 ? " ".repeat(lead.length) : "");
  const rowStart = visibleWidth(hangText);
  const out: string[] = [];
  let col = start;
  let spaces = "";
  let rowHasWord = false;
  for (const token of text.match(/\s+|\S+/g) ?? []) {
    if (/^\s/.test(token)) {
      spaces += token;
      continue;
    }
    let word = token;
    // Measured once: a word cut over many rows (a base64 image, a long log line) loses each row's head's
    // columns; measuring what is left on every row made a multi-MB word take minutes.
    let wordWidth = visibleWidth(word);
    const gap = rowHasWord || col > rowStart ? visibleWidth(spaces) : displayWidth(spaces);
    if (rowHasWord && col + gap + wordWidth > width) {
      out.push(`\n${hangText}`);
      col = rowStart;
      spaces = "";
    } else if (spaces !== "") {
      out.push(spaces);
      col += gap;
      spaces = "";
    }
    while (word !== "" && col + wordWidth > width) {
      const [head, tail] = splitAtWidth(word, Math.max(width - col, 1));
      out.push(head, `\n${hangText}`);
      col = rowStart;
      word = tail;
      wordWidth -= visibleWidth(head);
    }
    if (word !== "") {
      out.push(word);
      col += wordWidth;
      rowHasWord = true;
    }
  }
  return out.join("");
}
