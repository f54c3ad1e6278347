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
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join, resolve } from "node:path";
import { repoRoot } from "../shared.ts";
import { startModelServer, type ModelServer } from "./index.ts";
import { CODEX_MODEL } from "./openai-responses.ts";
import { GEMINI_MODEL } from "./gemini.ts";
import type { Script } from "./script.ts";
import { tempDir } from "../temp.ts";

/** The folder scripts/install-agent-clis.sh installs into (AGENT_CLIS_DIR overrides it for both). */
export const agentClisDir = resolve(repoRoot, process.env.AGENT_CLIS_DIR ?? ".agent-clis");
const bin = (name: string): string | undefined => {
  const path = join(agentClisDir, "node_modules", ".bin", name);
  return existsSync(path) ? path : undefined;
};
/** Paths of the installed CLIs; undefined when absent. */
export const realClis = {
  claude: bin("claude"),
  codex: bin("codex"),
  opencode: bin("opencode"),
  qwen: bin("qwen"),
  gemini: bin("gemini"),
  copilot: bin("copilot"),
} as const;

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
  /** More arguments for the CLI, after its own (Claude Code: `--mcp-config <file>`; Codex: `-c mcp_servers.x={...}`). */
  readonly extraArgs?: readonly string[];
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
  /** The CLI's HOME (kept until the test file ends): where it saved its session. */
  readonly home: string;
  /** The folder the CLI ran in. */
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
    args: [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-partial-messages",
      "--allowedTools",
      "Bash",
      ...(options.extraArgs ?? []),
    ],
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
      ...(options.extraArgs ?? []),
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

/**
 * Runs `qwen -p <prompt> --output-format stream-json --include-partial-messages --approval-mode yolo` with its
 * OpenAI-compatible provider (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL) pointed at a server playing `script`
 * over Chat Completions. `yolo` lets `run_shell_command` run without asking (and offers it at all in `-p` mode).
 */
export async function runRealQwen(script: Script, prompt: string, options: RealCliOptions = {}): Promise<RealCliRun> {
  const qwen = realClis.qwen;
  if (qwen === undefined) throw new Error(`Qwen Code is not installed in ${agentClisDir}: run scripts/install-agent-clis.sh`);
  return runReal(script, options, (home, baseUrl) => {
    // Its background memory extraction is one more model request after the answer, racing the exit: off.
    mkdirSync(join(home, ".qwen"), { recursive: true });
    writeFileSync(
      join(home, ".qwen", "settings.json"),
      JSON.stringify({
        memory: { enableManagedAutoMemory: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    );
    return {
      command: qwen,
      args: ["-p", prompt, "--output-format", "stream-json", "--include-partial-messages", "--approval-mode", "yolo"],
      env: {
        ...baseEnv(home),
        OPENAI_BASE_URL: `${baseUrl}/v1`,
        OPENAI_API_KEY: "sk-scripted-test-key",
        OPENAI_MODEL: QWEN_MODEL,
        QWEN_CODE_SUPPRESS_YOLO_WARNING: "1",
      },
    };
  });
}

/**
 * Runs `gemini -p <prompt> --output-format stream-json --approval-mode yolo -m gemini-2.5-flash` with the Gemini API
 * at a server playing `script`: GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY, with `security.auth.selectedType`
 * `gemini-api-key` in its settings (the base URL alone selects the `gateway` auth type, which `-p` refuses) and the
 * folder trusted (GEMINI_CLI_TRUST_WORKSPACE: an untrusted folder turns yolo back to asking). A named model skips
 * its router's classifier request. TMPDIR is the run's folder: it writes error reports there.
 */
export async function runRealGemini(script: Script, prompt: string, options: RealCliOptions = {}): Promise<RealCliRun> {
  const gemini = realClis.gemini;
  if (gemini === undefined) throw new Error(`Gemini CLI is not installed in ${agentClisDir}: run scripts/install-agent-clis.sh`);
  return runReal(script, options, (home, baseUrl) => {
    mkdirSync(join(home, ".gemini"), { recursive: true });
    writeFileSync(
      join(home, ".gemini", "settings.json"),
      JSON.stringify({
        security: { auth: { selectedType: "gemini-api-key" } },
        telemetry: { enabled: false },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      }),
    );
    mkdirSync(join(home, "tmp"), { recursive: true });
    return {
      command: gemini,
      args: ["-p", prompt, "--output-format", "stream-json", "--approval-mode", "yolo", "-m", GEMINI_MODEL],
      env: {
        ...baseEnv(home),
        GOOGLE_GEMINI_BASE_URL: baseUrl,
        GEMINI_API_KEY: "scripted-test-key",
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        TMPDIR: join(home, "tmp"),
      },
    };
  });
}

/**
 * Runs `copilot -p <prompt> --output-format json --allow-all-tools` with its BYOK provider (`COPILOT_PROVIDER_BASE_URL`,
 * type `openai`: Chat Completions) at a server playing `script`, in its offline mode (`COPILOT_OFFLINE`: no GitHub
 * sign-in, telemetry, web tools or updates).
 */
export async function runRealCopilot(script: Script, prompt: string, options: RealCliOptions = {}): Promise<RealCliRun> {
  const copilot = realClis.copilot;
  if (copilot === undefined) throw new Error(`Copilot CLI is not installed in ${agentClisDir}: run scripts/install-agent-clis.sh`);
  return runReal(script, options, (home, baseUrl) => ({
    command: copilot,
    args: ["-p", prompt, "--output-format", "json", "--allow-all-tools", "--no-auto-update", "--disable-client-telemetry"],
    env: {
      ...baseEnv(home),
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: `${baseUrl}/v1`,
      COPILOT_PROVIDER_TYPE: "openai",
      COPILOT_PROVIDER_API_KEY: "sk-scripted-test-key",
      COPILOT_MODEL: COPILOT_MODEL,
      COPILOT_AUTO_UPDATE: "false",
    },
  }));
}

/** The model Copilot CLI is told to use (its BYOK provider takes any name). */
export const COPILOT_MODEL = "gpt-4.1";

/** The model Qwen Code is told to use (any name works against our server). */
export const QWEN_MODEL = "qwen3-coder-plus";

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
    const result = await spawnCollect(outer, outerArgv, {
      env,
      cwd: work,
      timeoutMs: options.timeoutMs ?? 45_000,
      stdoutFile: join(dir, "stdout"),
    });
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

/**
 * Spawns with stdin from /dev/null (Codex appends piped stdin to the prompt) and collects everything. Standard
 * output goes to a file, not a pipe: a Node CLI that calls `process.exit` with a write to a pipe still queued loses
 * its tail (Claude Code's last long line, under load: anthropics/claude-code#77112), while a write to a file is
 * done before the call returns. The test reads what the CLI wrote; `runAgent`'s own pipe is tested elsewhere.
 */
function spawnCollect(
  file: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs: number; stdoutFile: string },
): Promise<Collected> {
  return new Promise((resolvePromise, reject) => {
    const stdout = openSync(options.stdoutFile, "w");
    const child = spawn(file, args, { env: options.env, cwd: options.cwd, stdio: ["ignore", stdout, "pipe"], detached: true });
    closeSync(stdout);
    const err: Buffer[] = [];
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
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
      resolvePromise({ stdout: readFileSync(options.stdoutFile), stderr: Buffer.concat(err).toString("utf8"), exitCode, timedOut });
    });
  });
}
