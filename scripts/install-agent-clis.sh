#!/usr/bin/env bash
# Installs the real agent CLIs that the real-CLI tests drive against our scripted model servers:
# Claude Code, Codex, Gemini CLI, Qwen Code, GitHub Copilot CLI and OpenCode, pinned, from npm, into
# .agent-clis/ (ignored by git; about 1.4 GB, too big to be dev dependencies of the package). Idempotent: does nothing when the pinned versions
# are there. Quiet, and never fails CI: when npm cannot install them it says so in one line on stderr
# and the suite skips with one line. Called by .ci/run after install-test-deps.sh.
# AGENT_CLIS_DIR overrides the folder (the tests read the same variable). Amp is not here: its npm
# package downloads its binary from outside the registry at install time (docs/sessions.md).
set -u
cd "$(dirname "$0")/.."
dir="${AGENT_CLIS_DIR:-.agent-clis}"
case "$dir" in /*) ;; *) dir="$(pwd)/$dir" ;; esac
packages=("@anthropic-ai/claude-code@2.1.197" "@openai/codex@0.169.0" "@google/gemini-cli@0.61.0"
  "@qwen-code/qwen-code@0.24.4" "@github/copilot@1.0.102" "opencode-ai@1.18.33")

installed_version() { # prints the version of package $1 installed in $dir, or nothing
  node -e 'try { console.log(require(process.argv[1]).version) } catch {}' \
    "$dir/node_modules/$1/package.json" 2>/dev/null
}

missing=()
for spec in "${packages[@]}"; do
  name="${spec%@*}" version="${spec##*@}"
  [ "$(installed_version "$name")" = "$version" ] || missing+=("$spec")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if ! command -v npm >/dev/null 2>&1; then
  echo "install-agent-clis: npm not found; the real-CLI tests will skip" >&2
  exit 0
fi
mkdir -p "$dir" || { echo "install-agent-clis: cannot create $dir; the real-CLI tests will skip" >&2; exit 0; }
# A package.json of its own keeps npm from walking up into the project's.
[ -f "$dir/package.json" ] || echo '{ "name": "agent-clis", "private": true }' > "$dir/package.json"
if ! npm install --prefix "$dir" --no-audit --no-fund --save-exact --loglevel=error --no-progress \
    "${missing[@]}" >/dev/null 2>"$dir/install.log"; then
  echo "install-agent-clis: npm could not install ${missing[*]} (see $dir/install.log); the real-CLI tests will skip" >&2
fi
exit 0
