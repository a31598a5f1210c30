#!/usr/bin/env bash
# Idempotent setup for development, tests and CI.
#
#   - Node dependencies (npm ci when node_modules is missing or package-lock.json changed).
#   - Temporal CLI (dev server), built with `go install` from the Go module proxy.
#   - FerretDB v1 (MongoDB wire protocol over SQLite), built from its module source.
#   - Temporal's Java time-skipping test server, classpath resolved from Maven Central,
#     plus a wrapper script that `exec`s the JVM.
#
# Everything server-related lives in the cache dir (never inside the repo):
#   ${AGENT_COMMERCE_CACHE:-$HOME/.cache/agent-commerce}/bin/{temporal,ferretdb,temporal-test-server}
#
# Environment:
#   AGENT_COMMERCE_CACHE        cache dir override
#   SKIP_SERVER_SETUP=1         only install Node dependencies
#   TEMPORAL_CLI_PATH           use this temporal binary instead of building one
#   FERRETDB_PATH               use this ferretdb binary instead of building one
#   TEMPORAL_TEST_SERVER_PATH   use this time-skipping test server executable instead
#   TEMPORAL_TEST_SERVER_VERSION  Maven version of io.temporal:temporal-test-server (default 1.38.0)
#
# Quiet when everything is present; progress lines go to stderr only when something is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${AGENT_COMMERCE_CACHE:-$HOME/.cache/agent-commerce}"
BIN="$CACHE/bin"

TEMPORAL_CLI_VERSION=1.5.1
FERRETDB_VERSION=1.24.2
# Our build's `package:` in `ferretdb --version`; bump it when the patch below changes, so caches rebuild.
FERRETDB_PACKAGE=agent-commerce-serialized-writes-1
TEMPORAL_TEST_SERVER_VERSION="${TEMPORAL_TEST_SERVER_VERSION:-1.38.0}"

log() { echo "setup: $*" >&2; }
die() { echo "setup: ERROR: $*" >&2; exit 1; }

# run_logged LOG CMD...: runs CMD with its output in LOG (under $CACHE/logs); on failure shows its tail and stops.
run_logged() {
  local logf="$CACHE/logs/$1"
  shift
  mkdir -p "$CACHE/logs"
  if ! "$@" >"$logf" 2>&1; then
    tail -n 40 "$logf" >&2
    die "failed: $* (full log: $logf)"
  fi
}

# ---------------------------------------------------------------------------
# Node dependencies
# ---------------------------------------------------------------------------
node_deps() {
  local lock="$ROOT/package-lock.json" stamp="$ROOT/node_modules/.setup-lock-hash" want have=""
  [ -f "$lock" ] || die "package-lock.json not found in $ROOT"
  want="$(sha256sum "$lock" | cut -d' ' -f1)"
  if [ -d "$ROOT/node_modules" ]; then
    if [ -f "$stamp" ]; then
      have="$(cat "$stamp")"
    elif [ -f "$ROOT/node_modules/.package-lock.json" ] && node -e '
        // node_modules installed without this script: accept it when npm'"'"'s hidden
        // lockfile matches package-lock.json (same packages, same versions).
        const fs = require("fs");
        const a = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).packages || {};
        const b = JSON.parse(fs.readFileSync(process.argv[2], "utf8")).packages || {};
        for (const [k, v] of Object.entries(a)) {
          if (!k) continue;
          const h = b[k];
          if (!h) { if (!v.optional) process.exit(1); continue; }
          if (h.version !== v.version) process.exit(1);
        }
        for (const k of Object.keys(b)) if (k && !(k in a)) process.exit(1);
      ' "$lock" "$ROOT/node_modules/.package-lock.json" 2>/dev/null; then
      have="$want"
      echo "$want" > "$stamp"
    fi
  fi
  if [ "$have" != "$want" ]; then
    log "installing Node dependencies (npm ci)"
    mkdir -p "$CACHE/logs"
    if ! (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error) >"$CACHE/logs/npm-ci.log" 2>&1; then
      # npm 11 rejects a lock file that lacks entries for other platforms' optional packages
      # ("Missing: @swc/core-darwin-arm64@ from lock file"). `npm install --no-save` still installs
      # the locked versions, adds what is missing, and writes neither package.json nor the lock file.
      grep -m1 -E '^npm error (Missing|`npm ci`)' "$CACHE/logs/npm-ci.log" >&2 || tail -n 5 "$CACHE/logs/npm-ci.log" >&2
      log "npm ci failed (full log: $CACHE/logs/npm-ci.log); falling back to npm install --no-save"
      (cd "$ROOT" && npm install --no-audit --no-fund --no-save --loglevel=error >&2)
    fi
    echo "$want" > "$stamp"
  fi
}

# ---------------------------------------------------------------------------
# Go builds
# ---------------------------------------------------------------------------
# reports_version EXE REGEX: EXE --version prints a line matching REGEX. (Output is captured first:
# `EXE --version | grep -q` can fail under pipefail when grep exits early and EXE gets SIGPIPE.)
reports_version() {
  local out
  [ -x "$1" ] || return 1
  out="$("$1" --version 2>/dev/null)" || return 1
  grep -qE "$2" <<<"$out"
}

need_go() {
  command -v go >/dev/null 2>&1 || die "go is required to build $1 (or set $2 to an existing binary)"
}

temporal_cli() {
  if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
    [ -x "$TEMPORAL_CLI_PATH" ] || die "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable file"
    return 0
  fi
  if reports_version "$BIN/temporal" "version $TEMPORAL_CLI_VERSION "; then
    return 0
  fi
  need_go "the Temporal CLI" TEMPORAL_CLI_PATH
  log "building Temporal CLI v$TEMPORAL_CLI_VERSION with go install (takes a few minutes)"
  mkdir -p "$BIN"
  (cd / && run_logged temporal-build.log env GOBIN="$BIN" GOFLAGS=-buildvcs=false go install \
    -ldflags "-X github.com/temporalio/cli/temporalcli.Version=$TEMPORAL_CLI_VERSION" \
    "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION")
  reports_version "$BIN/temporal" "version $TEMPORAL_CLI_VERSION " || die "built temporal does not report version $TEMPORAL_CLI_VERSION"
  log "installed $("$BIN/temporal" --version)"
}

# FerretDB pitfalls (v1.24.2):
#  - `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` fails against the module proxy here
#    ("loading deprecation ... @v/list: 403"), and even where it works, the binary panics at start:
#    build/version/version.txt is generated from git and is not part of the module zip, and the
#    version package panics when the main module is FerretDB and the version does not start with "v".
#  - So: download the module source, copy it, write build/version/version.txt, and `go build` it.
#  - No build tags needed: SQLite (modernc.org, pure Go) and PostgreSQL handlers are on by default;
#    without `ferretdb_debug` it is a normal (non-debug) build.
#  - Concurrency: v1 runs update / findAndModify / delete as a read, then a write, with no transaction,
#    so concurrent conditional updates of one document lose updates (100 parallel
#    `findOneAndUpdate({_id, balance: {$gte: 1}}, {$inc: {balance: -1}})` on balance 50: all 100
#    "succeed", balance ends at ~40). MongoDB makes each single-document write atomic, and our code
#    relies on that. We patch in one process-wide lock around the write commands (SQLite allows a single
#    writer at a time anyway), which restores per-document atomicity for every client and process.
ferretdb_patch() {
  local src="$1"
  cat > "$src/internal/handler/agentcommerce_serialize_writes.go" <<'GO'
// Added by agent-commerce scripts/setup.sh (not part of upstream FerretDB).

package handler

import (
	"context"
	"sync"

	"github.com/FerretDB/wire"
)

// writeMu serializes write commands. FerretDB v1 implements them as read-then-write without a
// transaction, so concurrent writes to one document could otherwise lose updates.
var writeMu sync.Mutex

// serializeWrites wraps the write commands' handlers with writeMu.
func (h *Handler) serializeWrites() {
	for _, name := range []string{"insert", "update", "delete", "findAndModify", "findandmodify"} {
		cmd := h.commands[name]
		if cmd == nil {
			continue
		}

		next := cmd.Handler
		cmd.Handler = func(ctx context.Context, msg *wire.OpMsg) (*wire.OpMsg, error) {
			writeMu.Lock()
			defer writeMu.Unlock()

			return next(ctx, msg)
		}
	}
}
GO
  sed -i 's/^\tfor name, cmd := range h.commands {$/\th.serializeWrites()\n\n&/' "$src/internal/handler/commands.go"
  grep -q '^	h.serializeWrites()$' "$src/internal/handler/commands.go" || die "could not patch FerretDB's internal/handler/commands.go"
}

ferretdb() {
  if [ -n "${FERRETDB_PATH:-}" ]; then
    [ -x "$FERRETDB_PATH" ] || die "FERRETDB_PATH=$FERRETDB_PATH is not an executable file"
    return 0
  fi
  if reports_version "$BIN/ferretdb" "^version: v$FERRETDB_VERSION\$" &&
    reports_version "$BIN/ferretdb" "^package: $FERRETDB_PACKAGE\$"; then
    return 0
  fi
  need_go "FerretDB" FERRETDB_PATH
  log "building FerretDB v$FERRETDB_VERSION (takes a few minutes)"
  mkdir -p "$BIN" "$CACHE/src"
  local moddir src
  (cd / && run_logged ferretdb-download.log go mod download -json "github.com/FerretDB/FerretDB@v$FERRETDB_VERSION")
  moddir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' "$CACHE/logs/ferretdb-download.log")"
  [ -n "$moddir" ] && [ -d "$moddir" ] || die "could not download FerretDB module source"
  src="$CACHE/src/ferretdb-$FERRETDB_VERSION"
  rm -rf "$src"
  cp -r "$moddir" "$src"
  chmod -R u+w "$src"
  echo "v$FERRETDB_VERSION" > "$src/build/version/version.txt"
  echo "$FERRETDB_PACKAGE" > "$src/build/version/package.txt"
  ferretdb_patch "$src"
  (cd "$src" && run_logged ferretdb-build.log env GOFLAGS=-buildvcs=false go build -trimpath -o "$BIN/ferretdb.tmp" ./cmd/ferretdb)
  mv -f "$BIN/ferretdb.tmp" "$BIN/ferretdb"
  rm -rf "$src"
  reports_version "$BIN/ferretdb" "^version: v$FERRETDB_VERSION\$" || die "built ferretdb does not report v$FERRETDB_VERSION"
  log "installed ferretdb v$FERRETDB_VERSION ($FERRETDB_PACKAGE)"
}

# ---------------------------------------------------------------------------
# Java time-skipping test server
# ---------------------------------------------------------------------------
TTS_DIR="$CACHE/temporal-test-server"
# Bump the recipe number when the pom or the wrapper below changes, so existing caches are rebuilt.
TTS_STAMP="$TEMPORAL_TEST_SERVER_VERSION recipe-2"

tts_ok() {
  [ -x "$BIN/temporal-test-server" ] && [ -s "$TTS_DIR/classpath.txt" ] && [ -s "$TTS_DIR/version.txt" ] || return 1
  local jar IFS=:
  # Compared with the requested version, so a fallback version (used when that did not resolve) is kept.
  [ "$(cat "$TTS_DIR/requested.txt" 2>/dev/null)" = "$TTS_STAMP" ] || return 1
  for jar in $(cat "$TTS_DIR/classpath.txt"); do
    [ -f "$jar" ] || return 1
  done
  command -v java >/dev/null 2>&1
}

tts_pom() {
  cat > "$TTS_DIR/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by scripts/setup.sh: only used to resolve the classpath of Temporal's Java test server. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.agent-commerce</groupId>
  <artifactId>temporal-test-server-classpath</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>$1</version>
    </dependency>
    <!-- A no-op SLF4J binding: silences the "Failed to load class StaticLoggerBinder" banner. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-nop</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
EOF
}

tts_resolve() {
  tts_pom "$1"
  rm -f "$TTS_DIR/classpath.txt"
  (cd "$TTS_DIR" && mvn -q -B dependency:build-classpath -Dmdep.outputFile=classpath.txt -Dmdep.includeScope=runtime \
    > "$TTS_DIR/mvn.log" 2>&1) && [ -s "$TTS_DIR/classpath.txt" ]
}

temporal_test_server() {
  if [ -n "${TEMPORAL_TEST_SERVER_PATH:-}" ]; then
    [ -x "$TEMPORAL_TEST_SERVER_PATH" ] || die "TEMPORAL_TEST_SERVER_PATH=$TEMPORAL_TEST_SERVER_PATH is not an executable file"
    return 0
  fi
  tts_ok && return 0
  command -v java >/dev/null 2>&1 || die "java is required for the time-skipping test server (or set TEMPORAL_TEST_SERVER_PATH)"
  command -v mvn >/dev/null 2>&1 || die "mvn is required to fetch the time-skipping test server (or set TEMPORAL_TEST_SERVER_PATH)"
  log "resolving io.temporal:temporal-test-server:$TEMPORAL_TEST_SERVER_VERSION from Maven Central"
  mkdir -p "$TTS_DIR" "$BIN"
  if ! tts_resolve "$TEMPORAL_TEST_SERVER_VERSION"; then
    log "version $TEMPORAL_TEST_SERVER_VERSION did not resolve; trying the newest release"
    tts_resolve RELEASE || { cat "$TTS_DIR/mvn.log" >&2; die "could not resolve io.temporal:temporal-test-server"; }
  fi
  local cp version
  cp="$(cat "$TTS_DIR/classpath.txt")"
  case "$cp" in *temporal-test-server-*.jar*) ;; *) die "classpath has no temporal-test-server jar" ;; esac
  version="$(printf '%s' "$cp" | tr ':' '\n' | sed -n 's#.*/temporal-test-server-\([^/]*\)\.jar$#\1#p' | head -n1)"
  echo "$version" > "$TTS_DIR/version.txt"

  # Class-data-sharing archive of the server's classes: cuts JVM start time (the TS SDK allows 5 s).
  # Java 17 dumps it at exit with -XX:ArchiveClassesAtExit; -Xshare:auto ignores a missing/stale one.
  local jsa="$TTS_DIR/app.jsa" port pid i
  rm -f "$jsa"
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ArchiveClassesAtExit="$jsa" -Xlog:cds=off -Xlog:cds+dynamic=off \
    -cp "$cp" io.temporal.testserver.TestServer "$port" >"$TTS_DIR/cds.log" 2>&1 &
  pid=$!
  for i in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
  done
  sleep 0.5
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  local cds=""
  if [ -s "$jsa" ]; then cds="-XX:SharedArchiveFile=$jsa "; fi

  cat > "$BIN/temporal-test-server.tmp" <<EOF
#!/bin/sh
# Temporal time-skipping test server $version (generated by scripts/setup.sh).
# Usage: temporal-test-server <port> [--enable-time-skipping]
# exec: the TypeScript SDK stops the server by killing its direct child only.
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${cds}-Xshare:auto -Xlog:disable -Xlog:all=error:stderr \\
  -cp "$cp" io.temporal.testserver.TestServer "\$@"
EOF
  chmod +x "$BIN/temporal-test-server.tmp"
  mv -f "$BIN/temporal-test-server.tmp" "$BIN/temporal-test-server"
  echo "$TTS_STAMP" > "$TTS_DIR/requested.txt"
  log "installed temporal-test-server $version ($BIN/temporal-test-server)"
}

# ---------------------------------------------------------------------------
# In a function, so bash has read the whole file before anything runs.
main() {
  node_deps
  if [ "${SKIP_SERVER_SETUP:-}" != "1" ]; then
    temporal_cli
    ferretdb
    temporal_test_server
  fi
}

main "$@"
