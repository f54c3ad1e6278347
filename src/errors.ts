/**
 * Input problems are data (`Issue`); caller mistakes throw `AgentStreamError`.
 */

/** How bad an input problem is. `fatal` means the whole source was rejected (gzip, UTF-16). */
export type IssueSeverity = "info" | "warning" | "error" | "fatal";

/** Codes for problems in the input. Kebab-case; stable across releases (docs/events.md lists them). */
export type IssueCode =
  // framing
  | "blank-line"
  | "non-json-line"
  | "invalid-json"
  | "not-object"
  | "line-too-long"
  | "depth-exceeded"
  | "duplicate-key"
  | "forbidden-key"
  | "unsafe-integer"
  | "number-overflow"
  | "invalid-utf8"
  | "bom-stripped"
  | "rs-stripped"
  | "no-final-newline"
  | "truncated-tail"
  | "possibly-truncated"
  | "cr-only-line-endings"
  | "utf16"
  | "gzip"
  | "binary"
  // dialects and sequence
  | "unknown-record"
  | "schema-mismatch"
  | "out-of-order"
  | "dialect-mismatch"
  // health
  | "parse-error-rate"
  | "large-deltas"
  // a followed file (--follow)
  | "file-truncated"
  | "file-replaced";

/**
 * Issues that say the input tried something hostile, not merely that it was damaged: shown even
 * when diagnostics are silenced (`-q`), since a quiet view must not hide an attempt to hide data.
 */
const SECURITY_ISSUES: ReadonlySet<IssueCode> = new Set<IssueCode>(["forbidden-key"]);

/** True for an issue that `-q` must not silence (see `SECURITY_ISSUES`). */
export function isSecurityIssue(issue: { readonly code: IssueCode }): boolean {
  return SECURITY_ISSUES.has(issue.code);
}

/** One problem found in the input. Never thrown; handed to `onIssue` and counted. */
export interface Issue {
  readonly code: IssueCode;
  readonly severity: IssueSeverity;
  readonly message: string;
  /** 1-based input line; 0 for the source as a whole. */
  readonly line?: number;
  /** Byte offset of the line (or record) in the input. */
  readonly offset?: number;
  /** Length in bytes of the line (or record) the issue is about. */
  readonly length?: number;
  /** The input file, when the reader knows it. */
  readonly file?: string;
  /** Path inside the record or event, as JSON Schema validators report it. */
  readonly path?: readonly (string | number)[];
}

/** Codes for mistakes made by the caller of the library or the CLI. */
export type ErrorCode = "usage" | "unknown-dialect" | "unknown-format" | "invalid-option" | "strict-issue" | "io";

const BRAND = Symbol.for("agentstream.error");

/** Thrown for caller mistakes (bad option, unknown dialect) and, with `strict`, for the first input issue. */
export class AgentStreamError extends Error {
  readonly code: ErrorCode;
  /** The input issue that ended a strict read. */
  readonly issue: Issue | undefined;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: { issue?: Issue; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AgentStreamError";
    this.code = code;
    this.issue = options.issue;
  }

  /** Works across package copies, unlike `instanceof`. */
  static is(value: unknown): value is AgentStreamError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** Formats an issue the way compilers do: `file:line: code: message`. */
export function formatIssue(issue: Issue, fallbackFile = "<stdin>"): string {
  const file = issue.file ?? fallbackFile;
  return `${file}:${issue.line ?? 0}: ${issue.code}: ${issue.message}`;
}
