#!/usr/bin/env bash
# Runs every benchmark under Node, Deno and Bun and writes the results; see bench/run.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node_modules/.bin/tsx bench/run.ts "$@"
