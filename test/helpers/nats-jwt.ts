/**
 * An operator-mode (decentralized JWT) setup for a real nats-server, built in the test with the
 * NKeys the client already depends on: an operator, a system account, an account with JetStream,
 * a user, their JWTs (NATS JWT v2: `base64url(header).base64url(claims).base64url(ed25519 signature
 * of the first two)`, header `{"typ":"JWT","alg":"ed25519-nkey"}`, claims `jti`, `iat`, `iss`,
 * `name`, `sub` and a `nats` object with `type` and `version: 2`), the server's configuration
 * (`operator`, `system_account`, `resolver: MEMORY`, `resolver_preload`) and the user's `.creds`
 * file in the armored format `nsc` writes.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { nkeys } from "@nats-io/transport-node";

type KeyPair = ReturnType<typeof nkeys.createUser>;

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const base64url = (data: string | Uint8Array): string => Buffer.from(data).toString("base64url");

/** Signs `nats` claims about `subject` with `issuer`'s key. */
function encodeJwt(name: string, subject: KeyPair, issuer: KeyPair, nats: Record<string, unknown>): string {
  const claims: Record<string, unknown> = {
    iat: Math.floor(Date.now() / 1000),
    iss: issuer.getPublicKey(),
    name,
    sub: subject.getPublicKey(),
    nats: { ...nats, version: 2 },
  };
  // The id of a JWT is a hash of its claims (nsc: SHA-512/256 in base32; any unique string is accepted).
  claims.jti = createHash("sha256").update(JSON.stringify(claims)).digest("hex").toUpperCase();
  const signed = `${base64url(JSON.stringify({ typ: "JWT", alg: "ed25519-nkey" }))}.${base64url(JSON.stringify(claims))}`;
  return `${signed}.${base64url(issuer.sign(new TextEncoder().encode(signed)))}`;
}

/** No limit on anything an account may have; with `jetstream`, no limit on its streams either (which enables JetStream for it). */
function accountLimits(jetstream: boolean): Record<string, unknown> {
  const nats = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
  return jetstream ? { ...nats, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 } : nats;
}

/** A user of `account`: its JWT and the `.creds` file holding it and its seed. */
function userCreds(name: string, account: KeyPair): { jwt: string; creds: string; seed: string } {
  const user = nkeys.createUser();
  const jwt = encodeJwt(name, user, account, { type: "user", pub: {}, sub: {}, subs: -1, data: -1, payload: -1 });
  const seed = text(user.getSeed());
  const creds = `-----BEGIN NATS USER JWT-----
${jwt}
------END NATS USER JWT------

************************* IMPORTANT *************************
NKEY Seed printed below can be used to sign and prove identity.
NKEYs are sensitive and should be treated as secrets.

-----BEGIN USER NKEY SEED-----
${seed}
------END USER NKEY SEED------
`;
  return { jwt, creds, seed };
}

export interface OperatorSetup {
  /** The server's configuration file (pass as `-c`). */
  readonly config: string;
  /** A user of the JetStream account. */
  readonly credsFile: string;
  readonly seed: string;
  /** A user signed by an account the server does not know. */
  readonly strangerCredsFile: string;
}

/** Writes the configuration and two `.creds` files into `dir`. */
export function writeOperatorSetup(dir: string): OperatorSetup {
  const operator = nkeys.createOperator();
  const system = nkeys.createAccount();
  const app = nkeys.createAccount();
  const operatorJwt = encodeJwt("agentstream-test", operator, operator, { type: "operator", system_account: system.getPublicKey() });
  const systemJwt = encodeJwt("SYS", system, operator, { type: "account", limits: accountLimits(false) });
  const appJwt = encodeJwt("APP", app, operator, { type: "account", limits: accountLimits(true) });
  const config = join(dir, "operator.conf");
  writeFileSync(
    config,
    `operator: ${operatorJwt}
system_account: ${system.getPublicKey()}
resolver: MEMORY
resolver_preload: {
  ${system.getPublicKey()}: ${systemJwt}
  ${app.getPublicKey()}: ${appJwt}
}
`,
  );
  const user = userCreds("publisher", app);
  const credsFile = join(dir, "user.creds");
  writeFileSync(credsFile, user.creds, { mode: 0o600 });
  const stranger = userCreds("stranger", nkeys.createAccount());
  const strangerCredsFile = join(dir, "stranger.creds");
  writeFileSync(strangerCredsFile, stranger.creds, { mode: 0o600 });
  return { config, credsFile, seed: user.seed, strangerCredsFile };
}
