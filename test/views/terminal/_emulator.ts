/**
 * A real terminal emulator (xterm.js headless) as the oracle for the renderer: we write our output
 * into it and read back what a person would see, plus everything the output did to the terminal
 * (title, clipboard, modes, cursor moves).
 */
import xterm from "@xterm/headless";
import type { AgentEvent } from "../../../src/model/events.ts";
import { createTerminalRenderer, type RendererOptions } from "../../../src/views/terminal/create-terminal-renderer.ts";

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

/** What the output did to the terminal besides printing text. */
interface Effects {
  titles: string[];
  osc52: number;
  /** OSC 8 hyperlinks opened (with a URI). */
  links: string[];
  /** Any other OSC. */
  osc: number[];
  dcs: number;
  bells: number;
  /** CSI sequences other than SGR (`m`), by final byte (with prefix). */
  csi: string[];
  /** ESC sequences (ESC 7, ESC 8, ESC c, ESC M, charset designations, ...). */
  esc: string[];
}

export interface Screen {
  term: Term;
  effects: Effects;
  /** Writes `text` and waits until the emulator has parsed it. */
  write(text: string): Promise<void>;
  /** Absolute row and column of the cursor. */
  cursor(): { row: number; col: number };
  /** Every row from the top of the scrollback to the cursor row, right-trimmed. */
  rows(): string[];
  /** Logical lines: rows joined across soft wraps (whitespace kept as the emulator has it). */
  logicalLines(): string[];
  modes(): Record<string, unknown>;
  dispose(): void;
}

const CSI_FINALS = Array.from({ length: 0x7e - 0x40 + 1 }, (_, i) => String.fromCharCode(0x40 + i)).filter((f) => f !== "m");

/** Creates an emulator `cols` wide; `watch` registers parser hooks that count every non-text effect. */
export function createScreen(cols: number, options: { scrollback?: number; watch?: boolean | "cursor" } = {}): Screen {
  const term = new Terminal({
    cols,
    rows: 24,
    scrollback: options.scrollback ?? 100_000,
    allowProposedApi: true,
    convertEol: true,
    logLevel: "off",
  });
  const effects: Effects = { titles: [], osc52: 0, links: [], osc: [], dcs: 0, bells: 0, csi: [], esc: [] };
  term.onTitleChange((title) => effects.titles.push(title));
  term.onBell(() => effects.bells++);
  term.parser.registerOscHandler(52, () => {
    effects.osc52++;
    return true; // handled: never reaches any clipboard
  });
  term.parser.registerOscHandler(8, (data) => {
    const uri = data.slice(data.indexOf(";") + 1);
    if (uri !== "") effects.links.push(uri);
    return false;
  });
  if (options.watch === "cursor") {
    // Only what moves the cursor or rewrites rows: cheap enough for every capture.
    for (const final of "ABCDEFGHIJKLMPSTXdfhlsu") {
      term.parser.registerCsiHandler({ final }, () => {
        effects.csi.push(final);
        return false;
      });
    }
    for (const final of "78DEMc") {
      term.parser.registerEscHandler({ final }, () => {
        effects.esc.push(final);
        return false;
      });
    }
  }
  if (options.watch === true) {
    for (const id of [0, 1, 2, 4, 7, 9, 10, 11, 12, 50, 99, 104, 777, 1337]) {
      term.parser.registerOscHandler(id, () => {
        effects.osc.push(id);
        return false;
      });
    }
    for (const final of CSI_FINALS) {
      for (const prefix of ["", "?", ">", "=", "<"]) {
        for (const intermediates of ["", "$", " ", "!", '"', "'", "*"]) {
          term.parser.registerCsiHandler(
            { final, ...(prefix !== "" ? { prefix } : {}), ...(intermediates !== "" ? { intermediates } : {}) },
            () => {
              effects.csi.push(`${prefix}${intermediates}${final}`);
              return false;
            },
          );
        }
      }
    }
    for (const final of "0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~") {
      for (const intermediates of ["", "(", ")", "*", "+", "#", "%", " "]) {
        term.parser.registerEscHandler({ final, ...(intermediates !== "" ? { intermediates } : {}) }, () => {
          effects.esc.push(`${intermediates}${final}`);
          return false;
        });
      }
    }
    for (const final of "pqrstu|{}~") {
      for (const intermediates of ["", "$", "+"]) {
        term.parser.registerDcsHandler({ final, ...(intermediates !== "" ? { intermediates } : {}) }, () => {
          effects.dcs++;
          return false;
        });
      }
    }
  }
  const buffer = () => term.buffer.active;
  return {
    term,
    effects,
    write: (text) => new Promise<void>((resolve) => term.write(text, resolve)),
    cursor() {
      const b = buffer();
      return { row: b.baseY + b.cursorY, col: b.cursorX };
    },
    rows() {
      const b = buffer();
      const last = b.baseY + b.cursorY;
      const out: string[] = [];
      for (let i = 0; i <= last; i++) out.push(b.getLine(i)?.translateToString(true) ?? "");
      return out;
    },
    logicalLines() {
      const b = buffer();
      const last = b.baseY + b.cursorY;
      const groups: number[][] = [];
      for (let i = 0; i <= last; i++) {
        if (b.getLine(i)?.isWrapped === true && groups.length > 0) (groups[groups.length - 1] as number[]).push(i);
        else groups.push([i]);
      }
      // A row followed by a soft wrap is kept whole (its last cells may be a space, or a wide character's gap).
      return groups.map((rows) => rows.map((r, k) => b.getLine(r)?.translateToString(k === rows.length - 1) ?? "").join(""));
    },
    modes() {
      const core = (term as unknown as { _core?: { coreService?: { isCursorHidden?: boolean } } })._core;
      return { ...term.modes, bufferType: buffer().type, cursorHidden: core?.coreService?.isCursorHidden ?? false };
    },
    dispose: () => term.dispose(),
  };
}

/** Renders `events` with the given options and returns every `write` (in order) and the event index of each. */
export function renderWrites(
  events: readonly AgentEvent[],
  options: Omit<RendererOptions, "write">,
): { writes: string[]; eventOfWrite: number[] } {
  const writes: string[] = [];
  const eventOfWrite: number[] = [];
  let index = -1;
  const renderer = createTerminalRenderer({
    ...options,
    write(text) {
      writes.push(text);
      eventOfWrite.push(index);
    },
  });
  for (let i = 0; i < events.length; i++) {
    index = i;
    renderer.render(events[i] as AgentEvent);
  }
  index = events.length;
  renderer.end();
  return { writes, eventOfWrite };
}

/** Our output without our styling: SGR and OSC 8 removed (test-side, independent of the renderer's own helper). */
export function plain(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\x1b" && text[i + 1] === "[") {
      let j = i + 2;
      while (j < text.length && /[0-9;:]/.test(text[j] as string)) j++;
      if (text[j] === "m") {
        i = j;
        continue;
      }
    }
    if (text[i] === "\x1b" && text[i + 1] === "]" && text.startsWith("8;", i + 2)) {
      const end = text.indexOf("\x1b\\", i);
      if (end !== -1) {
        i = end + 1;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}
