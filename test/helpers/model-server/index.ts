/**
 * A scripted model server for driving the real agent CLIs offline: it speaks the Anthropic Messages
 * API (`HEAD /`, `POST /v1/messages`), the OpenAI Responses API (`POST /v1/responses`), OpenAI Chat
 * Completions (`POST /v1/chat/completions`, openai-chat.ts) and the Gemini API
 * (`POST /v1beta/models/<model>:streamGenerateContent`, gemini.ts), all streaming, on 127.0.0.1 only, and answers each model request with the next turn of a script.
 * @example
 * const server = await startModelServer([{ blocks: [{ type: "text", text: "Hello." }] }]);
 * // ANTHROPIC_BASE_URL=server.url claude -p hi ...
 * await server.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from "node:net";
import { rmSync } from "node:fs";
import { answerAnthropic, answerAnthropicSideQuery, shellToolOf } from "./anthropic.ts";
import { answerResponses } from "./openai-responses.ts";
import { answerChat, chatShellToolOf } from "./openai-chat.ts";
import { answerGeminiSideQuery, answerGeminiStream, GEMINI_MODEL, geminiShellToolOf } from "./gemini.ts";
import type { Script, Turn } from "./script.ts";

export type { Script } from "./script.ts";
export { usageOf } from "./script.ts";

/** One request the server received, in arrival order. */
interface ModelRequest {
  readonly method: string;
  /** Path without the query string (`/v1/messages?beta=true` → `/v1/messages`). */
  readonly path: string;
  readonly api: "anthropic" | "responses" | "chat" | "gemini" | "other";
  /** The parsed JSON body, when there was one. */
  readonly body: unknown;
  /** The script turn this request was answered with; absent for side queries, probes and extra requests. */
  readonly turn?: number;
  /** A request outside the agent loop (no shell tool offered, e.g. a title): answered with a short text. */
  readonly side?: boolean;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>`: the base URL to give a CLI. */
  readonly url: string;
  /** Every request received so far. */
  readonly requests: readonly ModelRequest[];
  /** The Unix socket the server also listens on, when asked for one (see `ModelServerOptions.socketPath`). */
  readonly socketPath: string | undefined;
  /** How many script turns have been answered. */
  readonly turnsUsed: number;
  close(): Promise<void>;
}

export interface ModelServerOptions {
  /**
   * Also accept connections on this Unix socket. A CLI run in its own network namespace
   * (`unshare -n`) has a loopback of its own and cannot reach our 127.0.0.1, but it shares the
   * file system: a forwarder inside the namespace (bridge.mjs) relays its TCP connections here.
   */
  readonly socketPath?: string;
}

/** Text for requests after the script ran out, so a CLI that asks once more still ends cleanly. */
const EXHAUSTED: Turn = { blocks: [{ type: "text", text: "(the script has no more turns)", chunks: 1 }], usage: { input: 0, output: 0 } };

/** The answer to a side query (a request that offers no shell tool): a short text with zero usage. */
const SIDE_ANSWER: Turn = { blocks: [{ type: "text", text: "Scripted side answer.", chunks: 1 }], usage: { input: 0, output: 0 } };

/** Starts the server on 127.0.0.1, port chosen by the system. */
export async function startModelServer(script: Script, options: ModelServerOptions = {}): Promise<ModelServer> {
  const requests: ModelRequest[] = [];
  let next = 0;
  let sideQueries = 0;

  /** The next script turn; after the end, an error turn repeats (a retrying CLI sees the same failure). */
  const takeTurn = (): { turn: Turn; index: number | undefined } => {
    const index = next;
    const turn = script[index];
    if (turn !== undefined) {
      next++;
      return { turn, index };
    }
    const last = script.at(-1);
    return last?.error !== undefined ? { turn: last, index: script.length - 1 } : { turn: EXHAUSTED, index: undefined };
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const body = await readJsonBody(req);
    const model = (body as { model?: unknown } | undefined)?.model;
    const modelName = typeof model === "string" ? model : undefined;
    const record = (fields: Omit<ModelRequest, "method" | "path" | "body">): void => {
      requests.push({ method: req.method ?? "GET", path, body, ...fields });
    };
    if (req.method === "POST" && path === "/v1/messages") {
      const shellTool = shellToolOf(body);
      if (shellTool === undefined) {
        record({ api: "anthropic", side: true });
        await answerAnthropicSideQuery(res, 1000 + sideQueries++, modelName);
        return;
      }
      const { turn, index } = takeTurn();
      record(index === undefined ? { api: "anthropic" } : { api: "anthropic", turn: index });
      await answerAnthropic(res, turn, index ?? script.length, modelName, shellTool);
      return;
    }
    if (req.method === "POST" && path === "/v1/responses") {
      const { turn, index } = takeTurn();
      record(index === undefined ? { api: "responses" } : { api: "responses", turn: index });
      await answerResponses(res, turn, index ?? script.length, modelName);
      return;
    }
    if (req.method === "POST" && path.endsWith("/chat/completions")) {
      const shellTool = chatShellToolOf(body);
      if (shellTool === undefined) {
        record({ api: "chat", side: true });
        await answerChat(res, SIDE_ANSWER, 1000 + sideQueries++, modelName);
        return;
      }
      const { turn, index } = takeTurn();
      record(index === undefined ? { api: "chat" } : { api: "chat", turn: index });
      await answerChat(res, turn, index ?? script.length, modelName, shellTool);
      return;
    }
    const gemini = /^\/v1beta\/models\/([^:/]+):(streamGenerateContent|generateContent)$/.exec(path);
    if (req.method === "POST" && gemini !== null) {
      const geminiModel = gemini[1] ?? GEMINI_MODEL;
      if (gemini[2] === "generateContent") {
        record({ api: "gemini", side: true });
        answerGeminiSideQuery(res, body, geminiModel);
        return;
      }
      if (geminiShellToolOf(body) === undefined) {
        record({ api: "gemini", side: true });
        await answerGeminiStream(res, SIDE_ANSWER, 1000 + sideQueries++, geminiModel);
        return;
      }
      const { turn, index } = takeTurn();
      record(index === undefined ? { api: "gemini" } : { api: "gemini", turn: index });
      await answerGeminiStream(res, turn, index ?? script.length, geminiModel);
      return;
    }
    record({ api: "other" });
    // Claude Code probes `HEAD /` before its first call; anything else is a request we do not script.
    res.writeHead(req.method === "HEAD" && path === "/" ? 200 : 404, { "content-type": "application/json" });
    res.end(req.method === "HEAD" ? undefined : JSON.stringify({ error: { message: `not scripted: ${req.method} ${path}` } }));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the server itself: answer 500 so the CLI fails visibly, and keep the reason.
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;

  let unixServer: NetServer | undefined;
  if (options.socketPath !== undefined) {
    const socketPath = options.socketPath;
    rmSync(socketPath, { force: true });
    unixServer = createNetServer((socket) => server.emit("connection", socket));
    await new Promise<void>((resolve, reject) => {
      unixServer?.once("error", reject);
      unixServer?.listen(socketPath, resolve);
    });
  }

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    socketPath: options.socketPath,
    get turnsUsed() {
      return next;
    },
    async close() {
      server.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        new Promise<void>((resolve) => (unixServer === undefined ? resolve() : unixServer.close(() => resolve()))),
      ]);
    },
  };
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}
