/**
 * The subject scheme of the fleet (docs/fleet.md): every event of one session goes to
 * `agentstream.<host>.<agent>.<session>`, each token made safe for a NATS subject.
 *
 * A token keeps ASCII letters, digits, `-` and `_`; every other byte of its UTF-8 text (the `.` that
 * separates tokens, the wildcards `*` and `>`, spaces, `~` itself, anything non-ASCII) becomes `~`
 * and two upper-case hex digits. The mapping is one-to-one, so a reader gets the original back
 * (`decodeToken`), and a host name such as `ci-7.example.com` stays readable (`ci-7~2Eexample~2Ecom`).
 */

/** The stream's name unless `--stream` says otherwise (here, not in ./stream.ts, so the options load no NATS client). */
export const DEFAULT_STREAM = "AGENTSTREAM";

/** The first token of every subject we publish. */
export const SUBJECT_PREFIX = "agentstream";

/** The longest token kept whole; a longer one keeps its start and ends in a hash of the rest (subjects stay short). */
const MAX_TOKEN_CHARS = 96;

const SAFE_BYTE = /^[A-Za-z0-9_-]$/;

/** `ci-7.example.com` → `ci-7~2Eexample~2Ecom`; an empty token becomes `~` (never a wildcard, never empty). */
export function encodeToken(text: string): string {
  if (text === "") return "~";
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    const char = String.fromCharCode(byte);
    out += SAFE_BYTE.test(char) ? char : `~${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out.length <= MAX_TOKEN_CHARS ? out : `${out.slice(0, MAX_TOKEN_CHARS - 10)}~~${hash32(out)}`;
}

/** The text a token stands for (the inverse of `encodeToken`, except for tokens shortened with a hash). */
export function decodeToken(token: string): string {
  if (token === "~") return "";
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i++) {
    const hex = token[i] === "~" ? token.slice(i + 1, i + 3) : "";
    if (/^[0-9A-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(token.charCodeAt(i));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Who published a session: the three names its subject is made of. */
export interface SessionAddress {
  readonly host: string;
  readonly agent: string;
  readonly session: string;
}

/** `agentstream.<host>.<agent>.<session>`, each token encoded. */
export function sessionSubject(address: SessionAddress): string {
  return [SUBJECT_PREFIX, encodeToken(address.host), encodeToken(address.agent), encodeToken(address.session)].join(".");
}

/** The subject a reader filters on: `*` for each name not given. */
export function filterSubject(filter: Partial<SessionAddress>): string {
  const token = (name: string | undefined): string => (name === undefined ? "*" : encodeToken(name));
  return [SUBJECT_PREFIX, token(filter.host), token(filter.agent), token(filter.session)].join(".");
}

/** The names in a subject we published, or undefined for any other subject. */
export function parseSubject(subject: string): SessionAddress | undefined {
  const tokens = subject.split(".");
  if (tokens.length !== 4 || tokens[0] !== SUBJECT_PREFIX) return undefined;
  const [, host, agent, session] = tokens as [string, string, string, string];
  return { host: decodeToken(host), agent: decodeToken(agent), session: decodeToken(session) };
}

/**
 * The JetStream message id (`Nats-Msg-Id`) of an event: its session token and its `seq`. Publishing
 * the same event again (a retry, the spool sent after a reconnect, the same file published twice)
 * within the stream's duplicate window stores it once.
 */
export function messageId(subject: string, seq: number): string {
  return `${subject.slice(SUBJECT_PREFIX.length + 1)}:${seq}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: a short stable name for a long token or an anonymous stream. */
export function hash32(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
