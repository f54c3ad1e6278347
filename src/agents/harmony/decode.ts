// Source: OpenAI Harmony response format (gpt-oss), as text or as o200k_harmony token ids; versions and quirks: docs/dialects/harmony.md
import type { AgentEventDraft, JsonValue, MessageKind, MessageRole, ToolKind } from "../../model/events.ts";
import type { InputRecord } from "../../framing/ndjson/create-ndjson-parser.ts";
import type { Dialect } from "../../dialect/dialect.ts";
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
const HEADER_TOKENS: Record<number, string> = { 173781: "assistant", 35644: "analysis", 17196: "final", 316: " to", 28: "=", 3490: " code" };
const TOKEN_LINE = /^\s*\d+(?:\s+\d+)*\s*$/;

const ROLES: Record<string, MessageRole> = { assistant: "assistant", user: "user", system: "system", developer: "developer" };

/** True for a line of o200k_harmony token ids that contains a Harmony structural token. */
function isTokenLine(text: string): boolean {
  if (!TOKEN_LINE.test(text)) return false;
  return text.trim().split(/\s+/).some((t) => t === "200005" || t === "200006" || t === "200008");
}

/** Parses header text (role part, channel part, constrain part) into its fields. */
function parseHeader(rolePart: string, channelPart: string | undefined, constrain: string | undefined): HarmonyHeader {
  const words = rolePart.trim().split(/\s+/).filter((w) => w !== "");
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
    const cw = channelPart.trim().split(/\s+/).filter((w) => w !== "");
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
  if (t === "" || !"{[\"".includes(t[0] as string)) return undefined;
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
  createDecoder() {
    const state = createStreamState();
    let mode: "text" | "tokens" | undefined;
    let phase: "idle" | "header" | "content" = "idle";
    // Header being read.
    let rolePart = "";
    let channelPart: string | undefined;
    let constrainPart: string | undefined;
    let headerTarget: "role" | "channel" | "constrain" = "role";
    // Message being read.
    let header: HarmonyHeader | undefined;
    let messageId: string | undefined;
    let buffer: string[] = []; // content of tool calls and tool responses (emitted whole at the end)
    let hasContent = false;
    let pendingNewlines = 0;
    let lastLine = 0;
    let tail = ""; // a tag cut at the end of the previous line
    let tokenHeader = false; // token mode: inside a header
    const openCalls: { id: string; name: string }[] = [];
    let out: AgentEventDraft[] = []; // drafts of the record being decoded
    let sawTokenNote = false;

    const roleOf = (h: HarmonyHeader): MessageRole | undefined => ROLES[h.role];
    const kindOf = (h: HarmonyHeader): MessageKind => (h.channel === "analysis" ? "reasoning" : "text");
    /** What the open message is: streamed text, a tool call, or a tool response. */
    const shape = (h: HarmonyHeader): "message" | "call" | "response" => {
      const role = roleOf(h);
      if (role === undefined) return "response";
      if (role === "assistant" && h.recipient !== undefined && h.recipient !== "user" && h.recipient !== "all") return "call";
      return "message";
    };

    const beginHeader = (implicit: boolean): void => {
      phase = "header";
      rolePart = implicit ? "assistant" : "";
      channelPart = undefined;
      constrainPart = undefined;
      headerTarget = "role";
    };

    const beginContent = (): void => {
      header = parseHeader(rolePart, channelPart, constrainPart);
      phase = "content";
      buffer = [];
      hasContent = false;
      pendingNewlines = 0;
      messageId = shape(header) === "message" ? state.nextId("harmony-msg") : undefined;
      if (messageId !== undefined) {
        const role = roleOf(header) as MessageRole;
        out.push(...state.start(messageId, role, kindOf(header), compact({ channel: header.channel })));
      }
    };

    const appendContent = (text: string): void => {
      if (text === "" || header === undefined) return;
      let piece = text;
      if (pendingNewlines > 0) {
        if (hasContent) piece = "\n".repeat(pendingNewlines) + piece;
        pendingNewlines = 0;
      }
      hasContent = true;
      if (messageId !== undefined) out.push(...state.delta(messageId, piece, roleOf(header) as MessageRole, kindOf(header), compact({ channel: header.channel })));
      else buffer.push(piece);
    };

    /** Ends the open message; `stop` is the tag that ended it (undefined at an implicit end). */
    const endMessage = (stop: HarmonyTag | undefined): void => {
      if (phase === "header") {
        // Non-strict Harmony: `<|channel|>commentary Hello<|end|>` has no <|message|>; the words after the channel are the content.
        if (stop === undefined || channelPart === undefined) {
          const shown = `${rolePart}${channelPart === undefined ? "" : `<|channel|>${channelPart}`}`.trim();
          // A rendered prompt ends with `<|start|>assistant`, the header the model completes.
          if (shown !== "" || stop !== undefined) out.push({ type: "notice", kind: "harmony_header", level: "info", text: `a message header with no content: ${shown === "" ? "(empty)" : shown}` });
          phase = "idle";
          return;
        }
        const trimmed = channelPart.trim();
        const space = trimmed.search(/\s/);
        const content = space === -1 ? "" : trimmed.slice(space + 1);
        channelPart = space === -1 ? trimmed : trimmed.slice(0, space);
        beginContent();
        appendContent(content);
      }
      if (phase !== "content" || header === undefined) {
        phase = "idle";
        return;
      }
      const h = header;
      const kind = shape(h);
      const text = buffer.join("");
      if (kind === "message" && messageId !== undefined) {
        const role = roleOf(h) as MessageRole;
        const finalText = state.streamedText(messageId) ?? "";
        out.push(...state.complete(messageId, undefined, role, kindOf(h), compact({ channel: h.channel })));
        // <|return|> is the model's own "final answer done" stop token.
        if (stop === "return" && role === "assistant" && kindOf(h) === "text") out.push({ type: "session.completed", status: "success", finalText });
      } else if (kind === "call") {
        const id = state.nextId("harmony-call");
        const name = h.recipient as string;
        const input = parseJson(text) ?? text;
        state.toolStarted(id, name);
        openCalls.push({ id, name });
        out.push({ type: "tool.started", toolCallId: id, name, kind: toolKind(name), input });
      } else {
        // A tool's response: its role is the tool name; it answers the oldest open call to that tool.
        let at = openCalls.findIndex((c) => c.name === h.role);
        if (at === -1 && openCalls.length > 0) at = 0;
        const call = at === -1 ? undefined : openCalls.splice(at, 1)[0];
        if (call !== undefined) {
          state.toolCompleted(call.id);
          const result = parseJson(text);
          out.push(compact({ type: "tool.completed" as const, toolCallId: call.id, name: call.name, output: text, result, isError: false }));
        } else {
          out.push(compact({ type: "notice" as const, kind: "tool_response", level: "info" as const, text, details: compact({ tool: h.role, recipient: h.recipient, channel: h.channel }) }));
        }
      }
      phase = "idle";
      header = undefined;
      messageId = undefined;
      buffer = [];
    };

    /** Text that is not inside any message. */
    const looseText = (text: string): void => {
      if (text.trim() === "") return;
      out.push({ type: "text", text, position: "preamble" });
    };

    const onText = (text: string): void => {
      if (text === "") return;
      if (phase === "content") appendContent(text);
      else if (phase === "header") {
        if (headerTarget === "role") rolePart += text;
        else if (headerTarget === "channel") channelPart = (channelPart ?? "") + text;
        else constrainPart = (constrainPart ?? "") + text;
      } else looseText(text);
    };

    const onTag = (tag: HarmonyTag): void => {
      switch (tag) {
        case "start":
          if (phase !== "idle") endMessage(undefined);
          beginHeader(false);
          break;
        case "channel":
          if (phase === "content") endMessage(undefined); // a new channel inside content: the message ended (Witness-style tag streams)
          if (phase === "idle") beginHeader(true);
          headerTarget = "channel";
          channelPart = channelPart ?? "";
          break;
        case "constrain":
          if (phase === "idle") beginHeader(true);
          if (phase === "header") {
            headerTarget = "constrain";
            constrainPart = "";
          } else onText("<|constrain|>");
          break;
        case "message":
          if (phase === "idle") beginHeader(true);
          if (phase === "header") beginContent();
          else onText("<|message|>");
          break;
        case "end":
        case "return":
        case "call":
          if (phase !== "idle") endMessage(tag);
          break;
      }
    };

    /** Reads one line of Harmony text; `breakBefore` counts the line breaks between it and the previous line. */
    const readLine = (line: string, breakBefore: number): void => {
      let text = line;
      if (tail !== "") {
        const joined = tail + text;
        const head = /^<\|[a-z]+\|>/.exec(joined);
        if (head !== null && TAGS[head[0]] !== undefined) {
          text = joined;
          breakBefore = 0;
        } else onText(tail);
        tail = "";
      }
      if (breakBefore > 0) {
        if (phase === "content") pendingNewlines += breakBefore;
        else if (phase === "header") {
          const starts = /^\s*<\|(?:message|constrain|channel)\|>/.test(text) || /^\s*to=/.test(text);
          // A header cut by a line break after its channel (`<|channel|>final\nAnswer`): the next line is the content.
          if (headerTarget !== "role" && (channelPart ?? "").trim() !== "" && !starts) beginContent();
          else onText(" ");
        }
      }
      const cut = TAG_TAIL.exec(text);
      if (cut !== null && cut[0].length > 0) {
        tail = cut[0];
        text = text.slice(0, cut.index);
      }
      let from = 0;
      TAG_PATTERN.lastIndex = 0;
      for (let m = TAG_PATTERN.exec(text); m !== null; m = TAG_PATTERN.exec(text)) {
        onText(text.slice(from, m.index));
        onTag(TAGS[m[0]] as HarmonyTag);
        from = m.index + m[0].length;
      }
      onText(text.slice(from));
    };

    /** Token ids → Harmony text: special tokens become tags, known header words become words, others stay `[id]`. */
    const tokensToText = (line: string): string => {
      let text = "";
      for (const word of line.trim().split(/\s+/)) {
        const id = Number(word);
        const special = SPECIAL_TOKENS[id];
        if (special !== undefined) {
          text += special;
          tokenHeader = special === "<|start|>" || special === "<|channel|>" || special === "<|constrain|>";
          continue;
        }
        const known = tokenHeader ? HEADER_TOKENS[id] : undefined;
        text += known ?? `[${word}]`;
      }
      return text;
    };

    const decodeRecord = (record: InputRecord): void => {
      // The pipeline skips blank lines; a gap in line numbers is blank lines inside the text.
      const gap = lastLine === 0 ? 0 : Math.max(1, record.line - lastLine);
      lastLine = record.line;
      // A line that is a JSON object reaches us parsed; we re-serialise it (spacing may differ).
      const line = record.kind === "text" ? record.text : JSON.stringify(record.value);
      if (mode === undefined) mode = record.kind === "text" && isTokenLine(line) ? "tokens" : "text";
      if (mode === "tokens") {
        // openai/harmony test-data stores completions as o200k_harmony token ids; we decode the structure and keep text tokens as [id].
        if (!sawTokenNote) {
          sawTokenNote = true;
          const message = "o200k_harmony token ids: structure decoded, text tokens kept as [id] (decode them with the openai-harmony tokenizer)";
          out.push({ type: "notice", kind: "harmony_tokens", level: "warning", text: message });
        }
        if (!TOKEN_LINE.test(line)) {
          out.push({ type: "text", text: line, position: "interleaved" });
          return;
        }
        readLine(tokensToText(line), 0);
        return;
      }
      readLine(line, gap);
    };

    return {
      decode(record) {
        out = [];
        decodeRecord(record);
        return out;
      },
      end() {
        out = [];
        if (tail !== "") {
          onText(tail);
          tail = "";
        }
        pendingNewlines = 0;
        if (phase !== "idle") endMessage(undefined);
        out.push(...state.closeAll());
        return out;
      },
    };
  },
};
