// Source: OpenAI Harmony response format (gpt-oss), as text or as o200k_harmony token ids; versions and quirks: docs/dialects/harmony.md
import type { AgentEventDraft, JsonValue, MessageKind, MessageRole, ToolKind } from "../../model/events.ts";
import type { InputRecord } from "../../framing/ndjson/create-ndjson-parser.ts";
import type { Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { compact } from "../../dialect/json.ts";
import { createStreamState } from "../../dialect/messages.ts";

/**
 * The wire: `<|start|>{role}[ to={recipient}]<|channel|>{channel}[ to={recipient}][ {type}][<|constrain|>{type}]<|message|>{content}<|end|>`
 * with `<|return|>` (final answer done) or `<|call|>` (tool call) in place of `<|end|>` at the end of a completion.
 */
type HarmonyTag = "start" | "channel" | "constrain" | "message" | "end" | "return" | "call";

/** A parsed message header. */
interface HarmonyHeader {
  /** `assistant`, `user`, `system`, `developer`, or a tool name (`functions.get_weather`, `browser.search`). */
  role: string;
  channel: string | undefined;
  recipient: string | undefined;
  contentType: string | undefined;
}

const TAGS: Record<string, HarmonyTag> = {
  "<|start|>": "start",
  "<|channel|>": "channel",
  "<|constrain|>": "constrain",
  "<|message|>": "message",
  "<|end|>": "end",
  "<|return|>": "return",
  "<|call|>": "call",
};
const TAG_PATTERN = /<\|(?:start|channel|constrain|message|end|return|call)\|>/g;
/** A line ending inside a tag (`…<|chan`): the rest may open the next line. */
const TAG_TAIL = /<(?:\|[a-z]{0,9}\|?)?$/;

/** o200k_harmony special token ids (openai/harmony docs/format.md). */
const SPECIAL_TOKENS: Record<number, string> = {
  200002: "<|return|>",
  200003: "<|constrain|>",
  200005: "<|channel|>",
  200006: "<|start|>",
  200007: "<|end|>",
  200008: "<|message|>",
  200012: "<|call|>",
};
/**
 * Header words whose o200k_harmony ids are pinned by the upstream test suite (openai/harmony src/tests.rs,
 * test_simple_reasoning_response and test_simple_tool_call); other ordinary tokens cannot be decoded without the vocabulary.
 */
const HEADER_TOKENS: Record<number, string> = {
  173781: "assistant",
  35644: "analysis",
  17196: "final",
  316: " to",
  28: "=",
  3490: " code",
};
const TOKEN_LINE = /^\s*\d+(?:\s+\d+)*\s*$/;

const ROLES: Record<string, MessageRole> = { assistant: "assistant", user: "user", system: "system", developer: "developer" };

/** True for a line of o200k_harmony token ids that contains a Harmony structural token. */
function isTokenLine(text: string): boolean {
  if (!TOKEN_LINE.test(text)) return false;
  return text
    .trim()
    .split(/\s+/)
    .some((t) => t === "200005" || t === "200006" || t === "200008");
}

/** Parses header text (role part, channel part, constrain part) into its fields. */
function parseHeader(rolePart: string, channelPart: string | undefined, constrain: string | undefined): HarmonyHeader {
  const words = rolePart
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  let recipient: string | undefined;
  let contentType: string | undefined;
  let role = "assistant";
  let roleSet = false;
  const take = (word: string): void => {
    if (word.startsWith("to=")) recipient = word.slice(3);
    else if (contentType === undefined) contentType = word;
  };
  for (const word of words) {
    if (!roleSet && !word.startsWith("to=")) {
      role = word;
      roleSet = true;
    } else take(word);
  }
  let channel: string | undefined;
  if (channelPart !== undefined) {
    const cw = channelPart
      .trim()
      .split(/\s+/)
      .filter((w) => w !== "");
    for (const word of cw) {
      if (channel === undefined && !word.startsWith("to=")) channel = word;
      else take(word);
    }
  }
  if (constrain !== undefined && constrain.trim() !== "") contentType = constrain.trim();
  return { role, channel, recipient, contentType };
}

/** Tool kind from a Harmony recipient. */
function toolKind(recipient: string): ToolKind {
  if (recipient === "browser.search") return "web_search";
  if (recipient === "browser.open") return "web_fetch";
  if (recipient === "browser.find") return "search";
  if (recipient === "container.exec") return "command";
  return "other";
}

/** Parses JSON text; undefined when it is not JSON. */
function parseJson(text: string): JsonValue | undefined {
  const t = text.trim();
  if (t === "" || !'{["'.includes(t[0] as string)) return undefined;
  try {
    return JSON.parse(t) as JsonValue;
  } catch {
    return undefined;
  }
}

/** OpenAI Harmony text (or token ids) from gpt-oss: messages, reasoning, tool calls and tool responses. */
export const harmony: Dialect = {
  name: "harmony",
  description: "OpenAI Harmony-formatted text (gpt-oss)",
  readsText: true,
  detect(record) {
    if (record.kind !== "text") return false;
    const t = record.text;
    return t.includes("<|start|>") || t.includes("<|channel|>") || t.includes("<|message|>") || isTokenLine(t);
  },
  createDecoder: createHarmonyDecoder,
};

function createHarmonyDecoder(): DialectDecoder {
  const decoding = new HarmonyStream();
  return {
    decode(record) {
      decoding.out = [];
      decoding.decodeRecord(record);
      return decoding.out;
    },
    end() {
      decoding.out = [];
      if (decoding.tail !== "") {
        decoding.onText(decoding.tail);
        decoding.tail = "";
      }
      decoding.pendingNewlines = 0;
      if (decoding.phase !== "idle") decoding.endMessage(undefined);
      decoding.out.push(...decoding.state.closeAll());
      return decoding.out;
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class HarmonyStream {
  readonly state = createStreamState();
  mode: "text" | "tokens" | undefined;
  phase: "idle" | "header" | "content" = "idle";
  // Header being read.
  rolePart = "";
  channelPart: string | undefined;
  constrainPart: string | undefined;
  headerTarget: "role" | "channel" | "constrain" = "role";
  // Message being read.
  header: HarmonyHeader | undefined;
  messageId: string | undefined;
  buffer: string[] = []; // content of tool calls and tool responses (emitted whole at the end)
  hasContent = false;
  pendingNewlines = 0;
  lastLine = 0;
  tail = ""; // a tag cut at the end of the previous line
  tokenHeader = false; // token mode: inside a header
  readonly openCalls: { id: string; name: string }[] = [];
  out: AgentEventDraft[] = []; // drafts of the record being decoded
  sawTokenNote = false;

  roleOf(h: HarmonyHeader): MessageRole | undefined {
    return ROLES[h.role];
  }
  kindOf(h: HarmonyHeader): MessageKind {
    return h.channel === "analysis" ? "reasoning" : "text";
  }
  /** What the open message is: streamed text, a tool call, or a tool response. */
  shape(h: HarmonyHeader): "message" | "call" | "response" {
    const role = this.roleOf(h);
    if (role === undefined) return "response";
    if (role === "assistant" && h.recipient !== undefined && h.recipient !== "user" && h.recipient !== "all") return "call";
    return "message";
  }

  beginHeader(implicit: boolean): void {
    this.phase = "header";
    this.rolePart = implicit ? "assistant" : "";
    this.channelPart = undefined;
    this.constrainPart = undefined;
    this.headerTarget = "role";
  }

  beginContent(): void {
    this.header = parseHeader(this.rolePart, this.channelPart, this.constrainPart);
    this.phase = "content";
    this.buffer = [];
    this.hasContent = false;
    this.pendingNewlines = 0;
    this.messageId = this.shape(this.header) === "message" ? this.state.nextId("harmony-msg") : undefined;
    if (this.messageId !== undefined) {
      const role = this.roleOf(this.header) as MessageRole;
      this.out.push(...this.state.start(this.messageId, role, this.kindOf(this.header), compact({ channel: this.header.channel })));
    }
  }

  appendContent(text: string): void {
    if (text === "" || this.header === undefined) return;
    let piece = text;
    if (this.pendingNewlines > 0) {
      if (this.hasContent) piece = "\n".repeat(this.pendingNewlines) + piece;
      this.pendingNewlines = 0;
    }
    this.hasContent = true;
    if (this.messageId !== undefined)
      this.out.push(
        ...this.state.delta(
          this.messageId,
          piece,
          this.roleOf(this.header) as MessageRole,
          this.kindOf(this.header),
          compact({ channel: this.header.channel }),
        ),
      );
    else this.buffer.push(piece);
  }

  /** Ends the open message; `stop` is the tag that ended it (undefined at an implicit end). */
  endMessage(stop: HarmonyTag | undefined): void {
    if (this.phase === "header") {
      // Non-strict Harmony: `<|channel|>commentary Hello<|end|>` has no <|message|>; the words after the channel are the content.
      if (stop === undefined || this.channelPart === undefined) {
        const shown = `${this.rolePart}${this.channelPart === undefined ? "" : `<|channel|>${this.channelPart}`}`.trim();
        // A rendered prompt ends with `<|start|>assistant`, the header the model completes.
        if (shown !== "" || stop !== undefined)
          this.out.push({
            type: "notice",
            kind: "harmony_header",
            level: "info",
            text: `a message header with no content: ${shown === "" ? "(empty)" : shown}`,
          });
        this.phase = "idle";
        return;
      }
      const trimmed = this.channelPart.trim();
      const space = trimmed.search(/\s/);
      const content = space === -1 ? "" : trimmed.slice(space + 1);
      this.channelPart = space === -1 ? trimmed : trimmed.slice(0, space);
      this.beginContent();
      this.appendContent(content);
    }
    if (this.phase !== "content" || this.header === undefined) {
      this.phase = "idle";
      return;
    }
    const h = this.header;
    const kind = this.shape(h);
    const text = this.buffer.join("");
    if (kind === "message" && this.messageId !== undefined) {
      const role = this.roleOf(h) as MessageRole;
      const finalText = this.state.streamedText(this.messageId) ?? "";
      this.out.push(...this.state.complete(this.messageId, undefined, role, this.kindOf(h), compact({ channel: h.channel })));
      // <|return|> is the model's own "final answer done" stop token.
      if (stop === "return" && role === "assistant" && this.kindOf(h) === "text")
        this.out.push({ type: "session.completed", status: "success", finalText });
    } else if (kind === "call") {
      const id = this.state.nextId("harmony-call");
      const name = h.recipient as string;
      const input = parseJson(text) ?? text;
      this.state.toolStarted(id, name);
      this.openCalls.push({ id, name });
      this.out.push({ type: "tool.started", toolCallId: id, name, kind: toolKind(name), input });
    } else {
      // A tool's response: its role is the tool name; it answers the oldest open call to that tool.
      let at = this.openCalls.findIndex((c) => c.name === h.role);
      if (at === -1 && this.openCalls.length > 0) at = 0;
      const call = at === -1 ? undefined : this.openCalls.splice(at, 1)[0];
      if (call !== undefined) {
        this.state.toolCompleted(call.id);
        const result = parseJson(text);
        this.out.push(
          compact({ type: "tool.completed" as const, toolCallId: call.id, name: call.name, output: text, result, isError: false }),
        );
      } else {
        this.out.push(
          compact({
            type: "notice" as const,
            kind: "tool_response",
            level: "info" as const,
            text,
            details: compact({ tool: h.role, recipient: h.recipient, channel: h.channel }),
          }),
        );
      }
    }
    this.phase = "idle";
    this.header = undefined;
    this.messageId = undefined;
    this.buffer = [];
  }

  /** Text that is not inside any message. */
  looseText(text: string): void {
    if (text.trim() === "") return;
    this.out.push({ type: "text", text, position: "preamble" });
  }

  onText(text: string): void {
    if (text === "") return;
    if (this.phase === "content") this.appendContent(text);
    else if (this.phase === "header") {
      if (this.headerTarget === "role") this.rolePart += text;
      else if (this.headerTarget === "channel") this.channelPart = (this.channelPart ?? "") + text;
      else this.constrainPart = (this.constrainPart ?? "") + text;
    } else this.looseText(text);
  }

  onTag(tag: HarmonyTag): void {
    switch (tag) {
      case "start":
        if (this.phase !== "idle") this.endMessage(undefined);
        this.beginHeader(false);
        break;
      case "channel":
        if (this.phase === "content") this.endMessage(undefined); // a new channel inside content: the message ended (Witness-style tag streams)
        if (this.phase === "idle") this.beginHeader(true);
        this.headerTarget = "channel";
        this.channelPart = this.channelPart ?? "";
        break;
      case "constrain":
        if (this.phase === "idle") this.beginHeader(true);
        if (this.phase === "header") {
          this.headerTarget = "constrain";
          this.constrainPart = "";
        } else this.onText("<|constrain|>");
        break;
      case "message":
        if (this.phase === "idle") this.beginHeader(true);
        if (this.phase === "header") this.beginContent();
        else this.onText("<|message|>");
        break;
      case "end":
      case "return":
      case "call":
        if (this.phase !== "idle") this.endMessage(tag);
        break;
    }
  }

  /** Reads one line of Harmony text; `breakBefore` counts the line breaks between it and the previous line. */
  readLine(line: string, breakBefore: number): void {
    let text = line;
    if (this.tail !== "") {
      const joined = this.tail + text;
      const head = /^<\|[a-z]+\|>/.exec(joined);
      if (head !== null && TAGS[head[0]] !== undefined) {
        text = joined;
        breakBefore = 0;
      } else this.onText(this.tail);
      this.tail = "";
    }
    if (breakBefore > 0) {
      if (this.phase === "content") this.pendingNewlines += breakBefore;
      else if (this.phase === "header") {
        const starts = /^\s*<\|(?:message|constrain|channel)\|>/.test(text) || /^\s*to=/.test(text);
        // A header cut by a line break after its channel (`<|channel|>final\nAnswer`): the next line is the content.
        if (this.headerTarget !== "role" && (this.channelPart ?? "").trim() !== "" && !starts) this.beginContent();
        else this.onText(" ");
      }
    }
    const cut = TAG_TAIL.exec(text);
    if (cut !== null && cut[0].length > 0) {
      this.tail = cut[0];
      text = text.slice(0, cut.index);
    }
    let from = 0;
    TAG_PATTERN.lastIndex = 0;
    for (let m = TAG_PATTERN.exec(text); m !== null; m = TAG_PATTERN.exec(text)) {
      this.onText(text.slice(from, m.index));
      this.onTag(TAGS[m[0]] as HarmonyTag);
      from = m.index + m[0].length;
    }
    this.onText(text.slice(from));
  }

  /** Token ids → Harmony text: special tokens become tags, known header words become words, others stay `[id]`. */
  tokensToText(line: string): string {
    let text = "";
    for (const word of line.trim().split(/\s+/)) {
      const id = Number(word);
      const special = SPECIAL_TOKENS[id];
      if (special !== undefined) {
        text += special;
        this.tokenHeader = special === "<|start|>" || special === "<|channel|>" || special === "<|constrain|>";
        continue;
      }
      const known = this.tokenHeader ? HEADER_TOKENS[id] : undefined;
      text += known ?? `[${word}]`;
    }
    return text;
  }

  decodeRecord(record: InputRecord): void {
    // The pipeline skips blank lines; a gap in line numbers is blank lines inside the text.
    const gap = this.lastLine === 0 ? 0 : Math.max(1, record.line - this.lastLine);
    this.lastLine = record.line;
    // A line that is a JSON object reaches us parsed; we re-serialise it (spacing may differ).
    const line = record.kind === "text" ? record.text : JSON.stringify(record.value);
    if (this.mode === undefined) this.mode = record.kind === "text" && isTokenLine(line) ? "tokens" : "text";
    if (this.mode === "tokens") {
      // openai/harmony test-data stores completions as o200k_harmony token ids; we decode the structure and keep text tokens as [id].
      if (!this.sawTokenNote) {
        this.sawTokenNote = true;
        const message =
          "o200k_harmony token ids: structure decoded, text tokens kept as [id] (decode them with the openai-harmony tokenizer)";
        this.out.push({ type: "notice", kind: "harmony_tokens", level: "warning", text: message });
      }
      if (!TOKEN_LINE.test(line)) {
        this.out.push({ type: "text", text: line, position: "interleaved" });
        return;
      }
      this.readLine(this.tokensToText(line), 0);
      return;
    }
    this.readLine(line, gap);
  }
}
