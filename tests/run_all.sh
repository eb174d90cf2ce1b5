#!/usr/bin/env bash
# The test command: installs everything the tests need, then runs the whole suite under both
# supported verifiers versions.
#
#   bash tests/run_all.sh            # what CI runs (.ci/run calls exactly this)
#
# Two virtual environments under .venvs/ (override with MEMORY_ARENA_VENVS):
#   v04: verifiers 0.4.0 and every optional extra; runs the full suite, slow tests included.
#        (The dense system distils its model once into ~/.cache/memory-arena on first use, 30 s to 3 min.)
#   v03: verifiers 0.3.1; runs the tests marked `verifiers` (the environment on the classic API).
#   adapters: the mem0, Chroma and Qdrant libraries (kept out of v04: their pins are their own);
#        runs the tests marked `adapters`.
# Installs are skipped when the pins have not changed since the last run (a stamp file).
# Set MEMORY_ARENA_FAST=1 to skip the tests marked `slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
venvs=${MEMORY_ARENA_VENVS:-$root/.venvs}
python=${PYTHON:-python3}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PRIME_DISABLE_VERSION_CHECK=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export MEM0_TELEMETRY=False ANONYMIZED_TELEMETRY=False  # the adapters turn both off too; never phone home from CI

say() { printf '\n== %s ==\n' "$*"; }

# venv NAME REQUIREMENTS...: create or refresh a venv with the project installed in editable mode.
venv() {
  local name=$1; shift
  local dir="$venvs/$name" stamp
  stamp=$(printf '%s\n' "$@" | cat - pyproject.toml | sha256sum | cut -c1-16)
  if [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$stamp" ]; then
    return 0
  fi
  say "installing $name (once; later runs reuse it)"
  [ -x "$dir/bin/python" ] || "$python" -m venv "$dir"
  "$dir/bin/python" -m pip install -q --upgrade pip
  "$dir/bin/python" -m pip install -q "$@"
  echo "$stamp" > "$dir/.stamp"
}

system_packages() {
  # Chromium renders the HTML report in the report tests. Root (CI, developer machines here)
  # installs it; elsewhere those tests skip with a reason.
  if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing chromium"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
  # PostgreSQL: the reference server's tests start a throwaway cluster of their own
  # (tests/postgres_cluster.py); without the binaries those tests skip with a reason.
  if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
      && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing postgresql"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
}

system_packages
venv v04 -e ".[test,server,postgres,bm25,report,dense]" "verifiers==0.4.0" uv  # uv runs the 0.4 chat harness
venv v03 -e ".[test,server]" "verifiers==0.3.1"
venv adapters -e ".[test,mem0,chroma,qdrant]" "verifiers==0.4.0"

marker=()
[ "${MEMORY_ARENA_FAST:-0}" = 1 ] && marker=(-m "not slow")

say "suite on verifiers 0.4.0"
"$venvs/v04/bin/python" -m pytest -q -p no:cacheprovider "${marker[@]}"

say "environment tests on verifiers 0.3.1"
if [ ${#marker[@]} -gt 0 ]; then marker=(-m "verifiers and not slow"); else marker=(-m verifiers); fi
"$venvs/v03/bin/python" -m pytest -q -p no:cacheprovider "${marker[@]}"

say "library adapters (mem0, Chroma, Qdrant) in their own venv"
if [ "${MEMORY_ARENA_FAST:-0}" = 1 ]; then marker=(-m "adapters and not slow"); else marker=(-m adapters); fi
"$venvs/adapters/bin/python" -m pytest -q -p no:cacheprovider "${marker[@]}" tests/test_adapters.py
