#!/usr/bin/env bash
# Installs what the test suite needs that npm cannot give, from Debian packages:
#   tmux         the end-to-end terminal test (test/views/terminal/tmux.test.ts)
#   chromium     the browser tests of the web view and HTML export (through playwright-core; no browser download)
#   nats-server  the JetStream fan-in tests (a real server on 127.0.0.1 with a temporary store)
# Idempotent and quiet: installs only what is missing, and nothing (one line on stderr) when it cannot:
# not root and no sudo, or no apt-get. The suites that need a missing program then skip with one line.
# Called by .ci/run before `npm test`.
set -u
declare -A command_of=([tmux]=tmux [chromium]=chromium [nats-server]=nats-server)
missing=()
for package in tmux chromium nats-server; do
  command -v "${command_of[$package]}" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = "0" ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  sudo="sudo -n"
else
  echo "install-test-deps: missing ${missing[*]} and there is no root or sudo; the suites that need them will skip" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-deps: missing ${missing[*]} and there is no apt-get; the suites that need them will skip" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null 2>&1
for package in "${missing[@]}"; do
  if ! $sudo apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1; then
    echo "install-test-deps: could not install $package; the suites that need it will skip" >&2
  fi
done
exit 0
