/**
 * Runs the real Claude Code and Codex CLIs (installed by scripts/install-agent-clis.sh into
 * .agent-clis/), and OpenCode when it was installed too, against our scripted model server, offline.
 *
 * Isolation: where `unshare -n` works (Linux, root), the CLI runs in a network namespace that has
 * only a loopback, so nothing can leave the machine whatever it tries. That loopback is not the
 * one our server listens on, so bridge.mjs, started inside the namespace, relays the CLI's
 * connections to the server's Unix socket (the file system is shared). Elsewhere the CLI talks to
 * 127.0.0.1 directly and `isolated` is false; tests say so in their output.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { constants } from "node:os";
import { join, resolve } from "node:path";
import { repoRoot } from "../shared.ts";
import { startModelServer, type ModelServer } from "./index.ts";
import { CODEX_MODEL } from "./openai-responses.ts";
import type { Script } from "./script.ts";
import { tempDir } from "../temp.ts";

/** The folder scripts/install-agent-clis.sh installs into (AGENT_CLIS_DIR overrides it for both). */
export const agentClisDir = resolve(repoRoot, process.env.AGENT_CLIS_DIR ?? ".agent-clis");
const bin = (name: string): string | undefined => {
  const path = join(agentClisDir, "node_modules", ".bin", name);
  return existsSync(path) ? path : undefined;
};
/** Paths of the installed CLIs; undefined when absent. */
export const realClis = { claude: bin("claude"), codex: bin("codex"), opencode: bin("opencode") } as const;

let namespaceWorks: boolean | undefined;
/** True when `unshare -n` plus `ip link set lo up` work here (checked once). */
export function canIsolateNetwork(): boolean {
  namespaceWorks ??= spawnSync("unshare", ["-n", "sh", "-c", "ip link set lo up"], { stdio: "ignore", timeout: 5000 }).status === 0;
  return namespaceWorks;
}

export interface RealCliOptions {
  /** Kill the CLI after this long. @defaultValue 45000 */
  readonly timeoutMs?: number;
  /** Run in a loopback-only network namespace when possible. @defaultValue true */
  readonly isolate?: boolean;
  /**
   * Wraps the whole command line (namespace and bridge included) in another command, e.g.
   * `agentstream run [options] --`: `through(file, args)` gives the command line to spawn instead.
   */
  readonly through?: (file: string, args: readonly string[]) => readonly [string, readonly string[]];
}

export interface RealCliRun {
  /** Exactly what the CLI wrote on stdout. */
  readonly stdout: Buffer;
  readonly stderr: string;
  /** The exit code, or 128+n when killed by signal n (the timeout sends SIGKILL). */
  readonly exitCode: number;
  /** True when the run had no network but the loopback (see the module comment). */
  readonly isolated: boolean;
  readonly timedOut: boolean;
  /** The server, closed: its `requests` show what the CLI asked. */
  readonly server: ModelServer;
  /** The CLI's HOME and working folder (kept until the test file ends): where it left its session store. */
  readonly home: string;
  readonly cwd: string;
}

/** The environment both CLIs get: nothing of ours leaks in (no real keys, no IS_SANDBOX quirks). */
function baseEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SHELL: "/bin/bash", LANG: "C.UTF-8", TERM: "dumb", NO_COLOR: "1" };
}

/**
 * Runs `claude -p <prompt> --output-format stream-json --verbose --include-partial-messages`
 * against a server playing `script`.
 */
export async function runRealClaude(script: Script, prompt: string, options: RealCliOptions = {}): Promise<RealCliRun> {
  const claude = realClis.claude;
  if (claude === undefined) throw new Error(`Claude Code is not installed in ${agentClisDir}: run scripts/install-agent-clis.sh`);
  return runReal(script, options, (home, baseUrl) => ({
    command: claude,
    args: ["-p", prompt, "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--allowedTools", "Bash"],
    env: {
      ...baseEnv(home),
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: "sk-ant-scripted-test-key",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
  }));
}

/** Runs `codex exec --json <prompt>` with a `mock` Responses provider pointing at a server playing `script`. */
export async function runRealCodex(script: Script, prompt: string, options: RealCliOptions = {}): Promise<RealCliRun> {
  const codex = realClis.codex;
  if (codex === undefined) throw new Error(`Codex is not installed in ${agentClisDir}: run scripts/install-agent-clis.sh`);
  // Retries off: an API-error script should fail at once, not after Codex's backoff.
  const provider = `model_providers.mock={name="mock",base_url="${"{{BASE_URL}}"}/v1",wire_api="responses",env_key="MOCK_KEY",request_max_retries=0,stream_max_retries=0}`;
  const disabled = ["plugins", "remote_plugin", "apps", "plugin_sharing", "in_app_updates", "api_key_model_discovery", "daemon_auto_start"];
  return runReal(script, options, (home, baseUrl) => ({
    command: codex,
    args: [
      "exec",
      "--json",
      "--skip-git-repo-check",
      "-c",
      "model_provider=mock",
      "-c",
      provider.replace("{{BASE_URL}}", baseUrl),
      "-c",
      `model=${CODEX_MODEL}`,
      "-c",
      "check_for_update_on_startup=false",
      "-c",
      "analytics.enabled=false",
      "--dangerously-bypass-approvals-and-sandbox",
      ...disabled.flatMap((feature) => ["--disable", feature]),
      prompt,
    ],
    env: { ...baseEnv(home), CODEX_HOME: home, MOCK_KEY: "sk-scripted-test-key" },
  }));
}

/**
 * Runs `opencode run --format json <prompt>` with its built-in `anthropic` provider pointed at a server
 * playing `script` (OpenCode's shell tool is `bash`; the server answers with that name). Optional:
 * A run takes 15 to 20 s here, mostly its own start-up.
 */
export async function runRealOpenCode(script: Script, prompt: string, options: RealCliOptions = {}): Promise<RealCliRun> {
  const opencode = realClis.opencode;
  if (opencode === undefined) throw new Error(`OpenCode is not installed in ${agentClisDir}: run scripts/install-agent-clis.sh`);
  return runReal(script, options, (home, baseUrl) => ({
    command: opencode,
    args: ["run", "--format", "json", prompt],
    env: {
      ...baseEnv(home),
      ANTHROPIC_API_KEY: "sk-ant-scripted-test-key",
      // Inline config: no file to write, and the bridge can fill in its address.
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        model: "anthropic/claude-sonnet-4-5",
        autoupdate: false,
        share: "disabled",
        provider: { anthropic: { options: { baseURL: `${baseUrl}/v1`, apiKey: "sk-ant-scripted-test-key" } } },
      }),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    },
  }));
}

interface Invocation {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
}

async function runReal(
  script: Script,
  options: RealCliOptions,
  invocation: (home: string, baseUrl: string) => Invocation,
): Promise<RealCliRun> {
  // Kept until the test file ends: a CLI stopped at its timeout may still be writing, and the runs are concurrent.
  const dir = tempDir("cli", { until: "file" });
  const home = join(dir, "home");
  const work = join(dir, "work");
  mkdirSync(home);
  mkdirSync(work);
  const isolated = options.isolate !== false && canIsolateNetwork();
  let server: ModelServer | undefined;
  try {
    server = await startModelServer(script, isolated ? { socketPath: join(dir, "model.sock") } : {});
    const { command, args, env } = invocation(home, isolated ? "{{BASE_URL}}" : server.url);
    const [file, argv] = isolated
      ? [
          "unshare",
          [
            "-n",
            "sh",
            "-c",
            'ip link set lo up && exec "$@"',
            "sh",
            process.execPath,
            join(import.meta.dirname, "bridge.mjs"),
            join(dir, "model.sock"),
            command,
            ...args,
          ],
        ]
      : [command, [...args]];
    const [outer, outerArgv] = options.through === undefined ? [file, argv] : options.through(file, argv);
    const result = await spawnCollect(outer, outerArgv, { env, cwd: work, timeoutMs: options.timeoutMs ?? 45_000 });
    return { ...result, isolated, server, home, cwd: work };
  } finally {
    await server?.close();
  }
}

interface Collected {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly exitCode: number;
  readonly timedOut: boolean;
}

/** Spawns with stdin from /dev/null (Codex appends piped stdin to the prompt) and collects everything. */
function spawnCollect(
  file: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs: number },
): Promise<Collected> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    let timedOut = false;
    // The CLI leads a process group of its own (detached), with whatever it starts: bridge, shells, tool commands.
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      killGroup(); // nothing the CLI left behind outlives the run
      const exitCode = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
      resolvePromise({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString("utf8"), exitCode, timedOut });
    });
  });
}
