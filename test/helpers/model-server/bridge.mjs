// Runs a command inside a network namespace (`unshare -n`) while our model server runs outside it.
// The namespace has a loopback of its own, so the server's 127.0.0.1 is unreachable from in here;
// the file system is shared, though, so we listen on this namespace's 127.0.0.1 and relay every
// connection to the server's Unix socket. `{{BASE_URL}}` in the arguments and in environment values
// becomes http://127.0.0.1:<port> of the relay. Exits with the command's code (128+n on signal n).
// Usage: node bridge.mjs <socket-path> <command> [args...]
import { spawn } from "node:child_process";
import { connect, createServer } from "node:net";
import { constants } from "node:os";

const [socketPath, command, ...args] = process.argv.slice(2);
if (socketPath === undefined || command === undefined) {
  console.error("usage: node bridge.mjs <socket-path> <command> [args...]");
  process.exit(2);
}

const relay = createServer((client) => {
  const upstream = connect(socketPath);
  client.pipe(upstream).pipe(client);
  const drop = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", drop);
  upstream.on("error", drop);
});
relay.listen(0, "127.0.0.1", () => {
  const baseUrl = `http://127.0.0.1:${relay.address().port}`;
  const fill = (text) => text.replaceAll("{{BASE_URL}}", baseUrl);
  const env = Object.fromEntries(Object.entries(process.env).map(([key, value]) => [key, fill(value ?? "")]));
  const child = spawn(command, args.map(fill), { stdio: "inherit", env });
  for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
  child.on("error", (error) => {
    console.error(`bridge: cannot run ${command}: ${error.message}`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => {
    relay.close();
    process.exit(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
  });
});
