#!/usr/bin/env bash
# Installs what the test suite needs that npm cannot give: tmux (Debian package), for the end-to-end
# terminal test (test/views/terminal/tmux.test.ts). Idempotent and quiet: does nothing when tmux is already
# there, and nothing (one line on stderr) when it cannot install: not root and no sudo, or no apt-get.
# That test then skips with one line. Called by .ci/run before `npm test`.
set -u
command -v tmux >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = "0" ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  sudo="sudo -n"
else
  echo "install-test-deps: tmux is missing and there is no root or sudo; the tmux test will skip" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-deps: tmux is missing and there is no apt-get; the tmux test will skip" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! { $sudo apt-get update -qq >/dev/null && $sudo apt-get install -y -qq tmux >/dev/null; }; then
  echo "install-test-deps: could not install tmux; the tmux test will skip" >&2
fi
exit 0
