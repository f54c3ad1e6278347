/**
 * The redaction rules: one per kind of secret, from ../shared/docs/security-secrets.md (gitleaks'
 * high-confidence token shapes, the GitHub token format, and context rules that need a key name
 * next to the value). docs/redaction.md lists them.
 *
 * This file is the one place a secret's shape is declared. Each rule is data: its `keywords` (literal
 * text that every secret of the rule contains, as gitleaks' keywords are) and the expressions below, made
 * from the rule's steps. Every other matcher is generated from these: the rule's `trigger`, the combined
 * trigger and the byte check of the skimmer (redact-text.ts), the streaming redactor's partial matches
 * (create-stream-redactor.ts). test/stages/redact/rules.test.ts checks each rule's example against all of them.
 *
 * Each rule has three regular expressions:
 * - `trigger`: its keywords, a cheap test, so text that cannot hold this secret skips the rule;
 * - `pattern`: the match, global, with two groups: (1) context kept as is, (2) the secret replaced;
 * - `partial`: anchored at the end of the text, it matches the shortest tail that could still grow
 *   into a secret (`ghp_Ab` before the rest of the token arrives); streaming holds that tail back.
 * Every repeat is a single bounded character class (no nested quantifiers), so matching stays
 * linear in practice on adversarial input.
 */

/** The kinds of secret we redact; the name appears in the marker, `[REDACTED:<kind>]`. */
export type RedactionKind =
  | "private-key-block"
  | "github-fine-grained-pat"
  | "github-token"
  | "gitlab-token"
  | "anthropic-key"
  | "openai-key"
  | "aws-access-key-id"
  | "slack-token"
  | "slack-webhook"
  | "stripe-key"
  | "google-api-key"
  | "google-oauth-access-token"
  | "npm-token"
  | "pypi-token"
  | "huggingface-token"
  | "jwt"
  | "digitalocean-token"
  | "vault-token"
  | "url-userinfo-password"
  | "authorization-header"
  | "aws-secret-in-context"
  | "env-assignment"
  | "key-name";

/** One redaction rule. */
export interface RedactionRule {
  readonly kind: RedactionKind;
  /** Literal text every secret of this rule contains (ASCII, never `"` or `\\`): the source of every trigger. */
  readonly keywords: readonly string[];
  /** Whether the keywords match in any letter case. */
  readonly ignoreCase: boolean;
  /** Texts the rule redacts, one per keyword (a token rule's are made from its steps): the test that every matcher agrees reads them. */
  readonly examples: readonly string[];
  /** The keywords as one expression. */
  readonly trigger: RegExp;
  readonly pattern: RegExp;
  readonly partial: RegExp;
}

/** A literal step (any of these strings) or a bounded character class. */
type Step = readonly string[] | { readonly cls: string; readonly min: number; readonly max: number };

function escapeLiteral(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

function full(step: Step): string {
  if ("cls" in step) return step.min === step.max ? `${step.cls}{${step.min}}` : `${step.cls}{${step.min},${step.max}}`;
  return `(?:${step.map(escapeLiteral).join("|")})`;
}

/** The step, cut anywhere: a non-empty prefix of a literal, or the class repeated 0..max times. */
function relaxed(step: Step): string {
  if ("cls" in step) return `${step.cls}{0,${step.max}}`;
  const prefixes = new Set<string>();
  for (const literal of step) for (let end = 1; end <= literal.length; end++) prefixes.add(literal.slice(0, end));
  // Longest first, so the alternation prefers the longer prefix.
  return `(?:${[...prefixes]
    .sort((a, b) => b.length - a.length)
    .map(escapeLiteral)
    .join("|")})`;
}

/** Every cut of a sequence of steps: the first k-1 steps whole, then step k cut. */
function partialOf(steps: readonly Step[]): string {
  const alternatives: string[] = [];
  for (let k = 0; k < steps.length; k++) alternatives.push(steps.slice(0, k).map(full).join("") + relaxed(steps[k] as Step));
  return alternatives.join("|");
}

/** The rules made by `token`: their partial matches all start with the first character of one of their prefixes. */
const tokenRules = new Set<RedactionRule>();
/** Those first characters. */
const tokenFirstChars = new Set<string>();

/** A rule for a token recognised by its own shape: a literal prefix, then bounded character classes. */
function token(kind: RedactionKind, variants: readonly (readonly Step[])[], end = ""): RedactionRule {
  const firstLiterals = variants.flatMap((steps) => steps[0] as readonly string[]);
  for (const literal of firstLiterals) tokenFirstChars.add(literal.charAt(0));
  const body = variants.map((steps) => steps.map(full).join("")).join("|");
  const rule: RedactionRule = {
    kind,
    keywords: firstLiterals,
    ignoreCase: false,
    examples: variants.flatMap((steps) => (steps[0] as readonly string[]).map((first) => tokenExample(first, steps.slice(1)))),
    trigger: keywordsExpression(firstLiterals, false),
    pattern: new RegExp(`()${START}((?:${body})${end})`, "g"),
    partial: new RegExp(`${START}(?:${variants.map(partialOf).join("|")})$`, "g"),
  };
  tokenRules.add(rule);
  return rule;
}

/** A token of the shape `first` then `steps` (each class repeated its least number of times, at least once), with text around it. */
function tokenExample(first: string, steps: readonly Step[]): string {
  const body = steps.map((step) => ("cls" in step ? exampleChar(step.cls).repeat(Math.max(1, step.min)) : (step[0] as string))).join("");
  return `token: ${first}${body} ok`;
}

function exampleChar(cls: string): string {
  const matches = new RegExp(`^${cls}$`);
  return [..."aA1xZ9_-"].find((c) => matches.test(c)) as string;
}

/** Any of the keywords, as an expression. */
function keywordsExpression(keywords: readonly string[], ignoreCase: boolean): RegExp {
  return new RegExp(keywords.map(escapeLiteral).join("|"), ignoreCase ? "i" : "");
}

const cls = (chars: string, min: number, max = min): Step => ({ cls: chars, min, max });
const WORD = "[A-Za-z0-9]";
const WORD_ = "[A-Za-z0-9_]";
const WORD_DASH = "[A-Za-z0-9_-]";

const PRIVATE_KEY_HEAD = "-----BEGIN[ A-Z0-9_]{0,100}PRIVATE KEY(?: BLOCK)?-----";
const PRIVATE_KEY_END = "-----END[ A-Z0-9_]{0,100}PRIVATE KEY(?: BLOCK)?-----";

/** Key names that make a `NAME=value` assignment a secret (`.env` dumps, `export X=...`). */
const ENV_KEY_WORDS = ["SECRET", "TOKEN", "PASSWORD", "PASSWD", "API_KEY", "PRIVATE_KEY", "ACCESS_KEY"];
const ENV_KEY = `[A-Z0-9_]{0,64}(?:${ENV_KEY_WORDS.join("|")})[A-Z0-9_]{0,64}`;
/**
 * Where a secret may start: a word boundary, or just after a JSON escape (`\n`, `\t`), so a secret at
 * the start of a line inside JSON text (tool input deltas) is caught too (gitleaks does the same).
 */
const START = "(?:\\b|(?<=\\\\[nrt]))";
/** Where a key block may start: not inside a word or a run of dashes, or just after a JSON escape. */
const BLOCK_START = "(?:(?<![A-Za-z0-9-])|(?<=\\\\[nrt]))";
/** A value that is already a marker is not redacted again (a token inside a URL, then the URL rule). */
const NOT_MARKER = "(?!\\[REDACTED)";

/** A rule that redacts a value only when a context (a key name, a URL scheme) stands before it; the context holds a keyword. */
function contextual(
  kind: RedactionKind,
  words: { readonly keywords: readonly string[]; readonly ignoreCase?: boolean; readonly examples: readonly string[] },
  context: string,
  value: string,
  min: number,
  max: number,
  after = "",
  flags = "",
): RedactionRule {
  const ignoreCase = words.ignoreCase === true;
  return {
    kind,
    keywords: words.keywords,
    ignoreCase,
    examples: words.examples,
    trigger: keywordsExpression(words.keywords, ignoreCase),
    pattern: new RegExp(`(${context})${NOT_MARKER}(${value}{${min},${max}})${after}`, `g${flags}`),
    // The secret starts after the context, so only the value is held; the context was already shown.
    partial: new RegExp(`(?<=${context})${NOT_MARKER}${value}{1,${max}}$`, `g${flags}`),
  };
}

/** The rules, most specific first, so a marker never splits another secret; key blocks last. */
export const RULES: readonly RedactionRule[] = [
  token("github-fine-grained-pat", [[["github_pat_"], cls(WORD_, 82, 244)]], "\\b"),
  token("github-token", [[["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], cls(WORD, 36, 251)]], "\\b"),
  token("gitlab-token", [
    [["glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "glagent-", "glsoat-"], cls(WORD_DASH, 20, 255)],
  ]),
  token("anthropic-key", [[["sk-ant-api", "sk-ant-admin", "sk-ant-oat", "sk-ant-ort"], cls("[0-9]", 2), ["-"], cls(WORD_DASH, 20, 255)]]),
  token("openai-key", [
    [["sk-proj-", "sk-svcacct-", "sk-admin-"], cls(WORD_DASH, 20, 255)],
    [["sk-"], cls(WORD_DASH, 20, 255), ["T3BlbkFJ"], cls(WORD_DASH, 20, 255)],
  ]),
  token(
    "aws-access-key-id",
    [
      [["AKIA", "ASIA", "ABIA", "ACCA"], cls("[A-Z2-7]", 16)],
      [["A3T"], cls("[A-Z0-9]", 1), cls("[A-Z2-7]", 16)],
    ],
    "\\b",
  ),
  token("slack-token", [
    [["xoxb-", "xoxp-", "xoxe-", "xoxa-", "xoxr-"], cls("[0-9]", 10, 13), ["-"], cls("[0-9]", 10, 13), cls("[A-Za-z0-9-]", 0, 255)],
    [["xapp-"], cls("[0-9]", 1), ["-"], cls("[A-Z0-9]", 8, 32), ["-"], cls("[0-9]", 10, 16), ["-"], cls("[a-z0-9]", 32, 80)],
  ]),
  token("slack-webhook", [[["hooks.slack.com/"], ["services/", "workflows/", "triggers/"], cls("[A-Za-z0-9+/]", 43, 56)]]),
  token("stripe-key", [[["sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"], cls(WORD, 10, 99)]], "\\b"),
  token("google-api-key", [[["AIza"], cls(WORD_DASH, 35)]], "(?![A-Za-z0-9_-])"),
  token("google-oauth-access-token", [[["ya29."], cls(WORD_DASH, 20, 2048)]]),
  token("npm-token", [[["npm_"], cls(WORD, 36)]], "\\b"),
  token("pypi-token", [[["pypi-AgEIcHlwaS5vcmc"], cls(WORD_DASH, 50, 1000)]]),
  token("huggingface-token", [[["hf_"], cls("[A-Za-z]", 34)]], "\\b"),
  token("jwt", [[["eyJ"], cls(WORD_DASH, 10, 4096), [".eyJ"], cls(WORD_DASH, 10, 8192), ["."], cls(WORD_DASH, 10, 4096)]]),
  token("digitalocean-token", [[["dop_v1_", "doo_v1_", "dor_v1_"], cls("[a-f0-9]", 64)]], "\\b"),
  token("vault-token", [[["hvs."], cls(WORD_DASH, 90, 120)]]),
  contextual(
    "url-userinfo-password",
    { keywords: ["://"], examples: ["postgres://app:hunter22@db:5432/x"] },
    `${START}[a-z][a-z0-9+.-]{1,20}:\\/\\/[^\\s:@/]{1,256}:`,
    "[^\\s@/]",
    1,
    256,
    "(?=@)",
    "i",
  ),
  contextual(
    "authorization-header",
    { keywords: ["uthorization"], examples: ["curl -H 'Authorization: Bearer abcdefgh12345678' x"] },
    `${START}[Aa]uthorization["']?\\s{0,5}[:=]\\s{0,5}["']?(?:Bearer|Basic|bearer|basic|Token|token)\\s{1,5}`,
    "[A-Za-z0-9._~+/=-]",
    8,
    4096,
  ),
  contextual(
    "aws-secret-in-context",
    {
      // `access_key` rather than `aws_secret`: anchored on `_` and `k`, rarer in text than the `w` of `awssecret`.
      keywords: ["access_key", "accesskey"],
      ignoreCase: true,
      examples: [`aws_secret_access_key = ${"wJalrXUtnFEMI/K7MDENG/bPxRfiCY".padEnd(40, "A")}`, `AWSSecretAccessKey: ${"Ab1+".repeat(10)}`],
    },
    `${START}aws_?secret_?access_?key["']?\\s{0,5}[:=]\\s{0,5}["']?`,
    "[A-Za-z0-9/+]",
    40,
    40,
    "(?![A-Za-z0-9/+])",
    "i",
  ),
  // A `$VAR` or `${VAR}` value is a reference, not a secret.
  // A backslash ends the value: inside JSON text it starts the escape of the next line (`\\n`).
  contextual(
    "env-assignment",
    { keywords: ENV_KEY_WORDS, examples: ENV_KEY_WORDS.map((word) => `export MY_${word}="abcdefgh1234"`) },
    `${START}${ENV_KEY}=(?:\\\\?["'])?(?!\\$)`,
    "[^\\s\"'`\\\\]",
    8,
    4096,
  ),
  {
    kind: "private-key-block",
    keywords: ["-----BEGIN"],
    ignoreCase: false,
    examples: ["key: -----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----"],
    trigger: keywordsExpression(["-----BEGIN"], false),
    // Last, so a secret whose key name is inside a cut-off block is caught by its own rule first.
    // A block cut off by output truncation (no END line) is redacted to the end of the text, or to
    // the quote that ends it inside JSON text (a key body never holds one).
    pattern: new RegExp(`()${BLOCK_START}(${PRIVATE_KEY_HEAD}[^"]{0,16384}?(?:${PRIVATE_KEY_END}|(?=")|$))`, "g"),
    partial: new RegExp(
      `${BLOCK_START}-----BEGIN[ A-Z0-9_]{0,100}${relaxed(["PRIVATE KEY-----", "PRIVATE KEY BLOCK-----"])}?$` +
        `|${BLOCK_START}${PRIVATE_KEY_HEAD}(?:(?!${PRIVATE_KEY_END})[^"]){0,16384}$` +
        // Dashes that may begin a BEGIN line (not `KEY-----` nor `test-msg-`).
        `|${BLOCK_START}-{1,5}(?:B(?:E(?:G(?:I(?:N)?)?)?)?)?$`,
      "g",
    ),
  },
];

/**
 * The token rules' `partial` expressions as one alternation. Its leftmost match starts where the
 * earliest of theirs does, so a streamed piece costs one scan of its tail instead of one per rule
 * (docs/redaction.md, "Speed").
 */
export const TOKEN_PARTIAL: RegExp = new RegExp(
  RULES.filter((rule) => tokenRules.has(rule))
    .map((rule) => `(?:${rule.partial.source})`)
    .join("|"),
  "g",
);

/** Where a token rule's partial match can start: one of these characters, at a word boundary or after a JSON escape. */
export const TOKEN_FIRST_CHARS: ReadonlySet<number> = new Set([...tokenFirstChars].map((c) => c.charCodeAt(0)));

/** The rules that redact a value after a context (a key name, a URL scheme): their partials need that context in the text. */
export const CONTEXTUAL_RULES: readonly RedactionRule[] = RULES.filter(
  (rule) => !tokenRules.has(rule) && rule.kind !== "private-key-block",
);
