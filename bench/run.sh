#!/usr/bin/env bash
# Runs each benchmark (or those whose name contains $1) under Node, Deno and Bun.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=node_modules/.bin
for file in bench/*_bench.ts; do
  case "$file" in *"${1:-}"*) ;; *) continue ;; esac
  echo "=== $file: node"; "$bin/tsx" "$file"
  echo "=== $file: deno"; "$bin/deno" run -A "$file"
  echo "=== $file: bun"; "$bin/bun" "$file"
done
