#!/bin/sh
# workspace.sh LANG REF_DIR OUT_DIR [FAULT_DIFF]: lay the shim, the reference and its fault into
# OUT_DIR (a new folder) and, for Go, build it. Not shipped: a helper for harness.py.
set -eu
lang=$1 ref=$2 out=$3 diff=${4:-}
repo=$(cd "$(dirname "$0")/../../.." && pwd)
stage=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out" && mkdir -p "$out"
cp -R "$stage/templates/$lang/." "$out/"
case $lang in
python) cp "$repo/packets/shims/server/python/mcp_shim.py" "$out/" ;;
node) cp "$repo/packets/shims/server/node/mcp_shim.mjs" "$out/" ;;
go) mkdir -p "$out/internal/shim"
    cp "$repo/packets/shims/server/go/internal/shim/server.go.tmpl" "$out/internal/shim/server.go"
    mv "$out/go.mod.tmpl" "$out/go.mod"
    mv "$out/cmd/server/main.go.tmpl" "$out/cmd/server/main.go" ;;
esac
[ -n "$ref" ] && cp -R "$ref/." "$out/"
rm -f "$out/README.md" "$out/expect.json"
if [ -n "$diff" ]; then (cd "$out" && patch -p1 --quiet --no-backup-if-mismatch < "$diff"); fi
if [ "$lang" = go ]; then (cd "$out" && GOFLAGS=-trimpath go build -o .kata/bin/ ./cmd/server); fi
