#!/usr/bin/env bash
# Idempotent setup for development, tests and CI.
#
#   - Node dependencies (npm ci when node_modules is missing or package-lock.json changed).
#   - Temporal CLI (dev server), built with `go install` from the Go module proxy.
#   - The embedded database: PostgreSQL 15 (Debian packages, installed when missing) with the DocumentDB,
#     pg_cron and pgvector extensions built from ../shared/vendor (checksums verified), and FerretDB v2.5.0
#     (MongoDB wire protocol on DocumentDB) built from its Go module source.
#   - Temporal's Java time-skipping test server, classpath resolved from Maven Central,
#     plus a wrapper script that `exec`s the JVM.
#   - Debian's chromium (installed when missing), the headless browser of the human-pages test.
#   - GoFakeS3, the S3-compatible server the S3 deliverable store is tested against, built with `go install`.
#   - stripe-mock, the Stripe API mock the Stripe adapter is tested against, built with `go install`.
#
# Everything server-related lives in the cache dir (never inside the repo):
#   ${AGENT_COMMERCE_CACHE:-$HOME/.cache/agent-commerce}/bin/{temporal,ferretdb,temporal-test-server,gofakes3,stripe-mock,mailpit}
#
# Environment:
#   AGENT_COMMERCE_CACHE        cache dir override
#   SKIP_SERVER_SETUP=1         only install Node dependencies
#   TEMPORAL_CLI_PATH           use this temporal binary instead of building one
#   FERRETDB_PATH               use this FerretDB v2 binary instead of building one
#   SKIP_DATABASE_SETUP=1       no PostgreSQL/DocumentDB/FerretDB (you point MONGODB_URI at a MongoDB)
#   AGENT_COMMERCE_VENDOR       folder with the vendored database sources (default ../shared/vendor)
#   PG_BIN_DIR                  PostgreSQL 15 binaries (default /usr/lib/postgresql/15/bin)
#   TEMPORAL_TEST_SERVER_PATH   use this time-skipping test server executable instead
#   TEMPORAL_TEST_SERVER_VERSION  Maven version of io.temporal:temporal-test-server (default 1.38.0)
#   SCHEMATHESIS_PATH           use this schemathesis executable instead of the cached virtualenv's
#   TEMPORAL_SERVER_PATH, TEMPORAL_SQL_TOOL_PATH, TEMPORAL_UI_SERVER_PATH, TEMPORAL_SCHEMA_DIR, HAPROXY_PATH
#                               use these instead of the cluster profile's builds (see temporal_cluster below)
#   CHROMIUM_PATH               use this Chromium for the browser test instead of Debian's /usr/bin/chromium
#   GOFAKES3_PATH               use this GoFakeS3 binary (the S3 store tests' server) instead of building one
#   STRIPE_MOCK_PATH            use this stripe-mock binary (the Stripe adapter tests' server) instead of building one
#   MAILPIT_PATH                use this Mailpit binary (the booking tests' SMTP server) instead of building one
#   (the MCP conformance suite and its Node 22 go to $CACHE/node22, from npm)
#
# Quiet when everything is present; progress lines go to stderr only when something is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${AGENT_COMMERCE_CACHE:-$HOME/.cache/agent-commerce}"
BIN="$CACHE/bin"

TEMPORAL_CLI_VERSION=1.5.1
FERRETDB_VERSION=2.5.0
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
    # The committed lock file is complete for every platform (issue 11 §3): npm ci and nothing else.
    if ! (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error) >"$CACHE/logs/npm-ci.log" 2>&1; then
      tail -n 20 "$CACHE/logs/npm-ci.log" >&2
      die "npm ci failed (full log: $CACHE/logs/npm-ci.log); package-lock.json must match package.json"
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

# ---------------------------------------------------------------------------
# Embedded database: PostgreSQL 15 with DocumentDB, and FerretDB v2 on it
# (recipe: ../shared/reference/embedded-database.md)
# ---------------------------------------------------------------------------
# Debian packages the extensions build against and the cluster runs on. Not postgresql-15-cron:
# its 1.4.2 cannot schedule in seconds, and DocumentDB's CREATE EXTENSION needs that.
PG_DEBS=(postgresql-15 postgresql-server-dev-15 libbson-dev libpcre2-dev libintelrdfpmath-dev postgresql-15-rum
  postgresql-15-postgis-3 pkg-config libkrb5-dev libicu-dev build-essential)
PG_BIN_DIR="${PG_BIN_DIR:-/usr/lib/postgresql/15/bin}"

# Where the vendored sources are: ../shared/vendor beside the repository, or $AGENT_COMMERCE_VENDOR.
VENDOR="${AGENT_COMMERCE_VENDOR:-$ROOT/../shared/vendor}"
DOCUMENTDB_TARBALL=documentdb-v0.106.0-ferretdb-2.5.0.tar.gz
PG_CRON_TARBALL=pg_cron-1.6.3.tar.gz
PGVECTOR_TARBALL=pgvector-0.8.0.tar.gz
# Bump when the build steps below change, so cached builds are redone.
PG_EXT_RECIPE="documentdb-0.106.0-ferretdb-2.5.0 pg_cron-1.6.3 pgvector-0.8.0 recipe-1"

missing_debs() {
  local pkg out=()
  for pkg in "${PG_DEBS[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || out+=("$pkg")
  done
  echo "${out[@]:-}"
}

pg_debs() {
  command -v dpkg-query >/dev/null 2>&1 || die "the embedded database needs Debian's PostgreSQL 15 packages (${PG_DEBS[*]}); on another system point MONGODB_URI at a MongoDB you run and use SKIP_DATABASE_SETUP=1"
  local missing
  missing="$(missing_debs)"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" != 0 ]; then
    die "missing Debian packages: $missing. Install them as root (apt-get install -y --no-install-recommends $missing), or point MONGODB_URI at a MongoDB you run and set SKIP_DATABASE_SETUP=1"
  fi
  log "installing Debian packages: $missing"
  run_logged apt-update.log apt-get update
  # shellcheck disable=SC2086
  run_logged apt-install.log env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
  missing="$(missing_debs)"
  [ -z "$missing" ] || die "still missing after apt-get install: $missing"
}

# verified_untar TARBALL DIR: checks TARBALL against $VENDOR/SHA256SUMS, then extracts it into a fresh DIR.
verified_untar() {
  local file="$VENDOR/$1" want have
  [ -f "$file" ] || die "vendored source $file not found (set AGENT_COMMERCE_VENDOR to the folder holding it, or point MONGODB_URI at a MongoDB and set SKIP_DATABASE_SETUP=1)"
  want="$(awk -v f="$1" '$2 == f { print $1 }' "$VENDOR/SHA256SUMS")"
  have="$(sha256sum "$file" | cut -d' ' -f1)"
  [ -n "$want" ] && [ "$want" = "$have" ] || die "checksum mismatch for $file (SHA256SUMS: ${want:-none}, file: $have)"
  rm -rf "$2"
  mkdir -p "$2"
  tar -xzf "$file" -C "$2"
}

# The extension files that must be in PostgreSQL's own directories for the cluster to load them.
pg_ext_installed() {
  local lib share
  lib="$("$PG_BIN_DIR/pg_config" --pkglibdir 2>/dev/null)" || return 1
  share="$("$PG_BIN_DIR/pg_config" --sharedir 2>/dev/null)" || return 1
  [ -f "$lib/pg_documentdb.so" ] && [ -f "$lib/pg_documentdb_core.so" ] && [ -f "$lib/pg_cron.so" ] &&
    [ -f "$lib/vector.so" ] && [ -f "$share/extension/documentdb.control" ] &&
    [ -f "$share/extension/pg_cron.control" ] && [ -f "$share/extension/vector.control" ]
}

pg_extensions() {
  local build="$CACHE/build/pg-extensions" stamp
  stamp="$build/built.txt"
  if [ "$(cat "$stamp" 2>/dev/null)" = "$PG_EXT_RECIPE" ]; then
    pg_ext_installed && return 0
    # Built earlier (cache kept), but PostgreSQL was reinstalled: install again, seconds.
    log "installing the cached DocumentDB, pg_cron and pgvector builds into PostgreSQL"
    run_logged pg-ext-install.log make -C "$build/pg_cron" install
    run_logged pg-ext-install.log make -C "$build/pgvector" OPTFLAGS="" install
    run_logged pg-ext-install.log make -C "$build/documentdb/pg_documentdb_core" install
    run_logged pg-ext-install.log make -C "$build/documentdb/pg_documentdb" install
    pg_ext_installed && return 0
  fi
  log "building pg_cron, pgvector and DocumentDB from $VENDOR (about a minute)"
  rm -rf "$build"
  mkdir -p "$build/pkgconfig"
  export PATH="$PG_BIN_DIR:$PATH"
  # Debian's libintelrdfpmath-dev ships no pkg-config file; DocumentDB asks for one.
  cat > "$build/pkgconfig/intelmathlib.pc" <<'PC'
prefix=/usr
libdir=${prefix}/lib/x86_64-linux-gnu
includedir=${prefix}/include
Name: intelmathlib
Description: Intel Decimal Floating-Point Math Library (Debian libintelrdfpmath-dev)
Version: 2.0
Libs: -L${libdir} -lbidgcc000
Cflags: -I${includedir}
PC
  export PKG_CONFIG_PATH="$build/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  verified_untar "$PG_CRON_TARBALL" "$build/pg_cron"
  verified_untar "$PGVECTOR_TARBALL" "$build/pgvector"
  verified_untar "$DOCUMENTDB_TARBALL" "$build/documentdb"
  run_logged pg_cron-build.log make -C "$build/pg_cron" -j2 install
  # OPTFLAGS="": no -march=native, so the build runs on any x86-64 machine the cache moves to.
  run_logged pgvector-build.log make -C "$build/pgvector" -j2 OPTFLAGS="" install
  # Debian's libbson 1.23 predates BSON_SUBTYPE_SENSITIVE (0x08), which this file switches on (DocumentDB builds
  # against the newer libbson its own scripts download; recipe in ../shared/reference/embedded-database.md).
  local f="$build/documentdb/pg_documentdb/src/operators/bson_expression_type_operators.c" last
  last="$(grep -nE '^[[:space:]]*#[[:space:]]*include' "$f" | tail -n1 | cut -d: -f1 || true)"
  [ -n "$last" ] || die "unexpected DocumentDB source layout: no #include in $f"
  sed -i "${last}a #ifndef BSON_SUBTYPE_SENSITIVE\n#define BSON_SUBTYPE_SENSITIVE 0x08\n#pragma GCC diagnostic ignored \"-Wswitch\"\n#endif" "$f"
  run_logged documentdb-core-build.log make -C "$build/documentdb/pg_documentdb_core" -j2 install
  run_logged documentdb-build.log make -C "$build/documentdb/pg_documentdb" -j2 install
  pg_ext_installed || die "DocumentDB, pg_cron or pgvector files missing from PostgreSQL's directories after make install"
  echo "$PG_EXT_RECIPE" > "$stamp"
  log "installed DocumentDB 0.106.0 (FerretDB 2.5.0 build), pg_cron 1.6.3 and pgvector 0.8.0 into PostgreSQL 15"
}

# FerretDB v2.5.0 (the release paired with DocumentDB 0.106):
#  - The module proxy lists only v2.7.0, but `go mod download ...@v2.5.0` works; `go install` cannot set the
#    version file (build/version/version.txt is generated from git and missing from the module zip).
#  - v2.5.0 defines setGOMAXPROCS only for Go < 1.25 (later releases build with Go 1.25, FerretDB/FerretDB#5508);
#    Go 1.25+ needs the empty stub added below.
#  - No build tags: `ferretdb_dev` makes a slow debug build.
ferretdb() {
  if [ -n "${FERRETDB_PATH:-}" ]; then
    [ -x "$FERRETDB_PATH" ] || die "FERRETDB_PATH=$FERRETDB_PATH is not an executable file"
    return 0
  fi
  if reports_version "$BIN/ferretdb" "^version: v$FERRETDB_VERSION\$"; then
    return 0
  fi
  need_go "FerretDB" FERRETDB_PATH
  log "building FerretDB v$FERRETDB_VERSION (takes a few minutes)"
  mkdir -p "$BIN" "$CACHE/src"
  local moddir src
  (cd / && run_logged ferretdb-download.log go mod download -json "github.com/FerretDB/FerretDB/v2@v$FERRETDB_VERSION")
  moddir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' "$CACHE/logs/ferretdb-download.log")"
  [ -n "$moddir" ] && [ -d "$moddir" ] || die "could not download FerretDB module source"
  src="$CACHE/src/ferretdb-$FERRETDB_VERSION"
  rm -rf "$src"
  cp -r "$moddir" "$src"
  chmod -R u+w "$src"
  echo "v$FERRETDB_VERSION" > "$src/build/version/version.txt"
  cat > "$src/cmd/ferretdb/gomaxprocs_go125.go" <<'GO'
//go:build go1.25

package main

import "log/slog"

// setGOMAXPROCS is a no-op on Go 1.25+, whose runtime sets GOMAXPROCS from the cgroup limit itself.
func setGOMAXPROCS(logger *slog.Logger) {}
GO
  (cd "$src" && run_logged ferretdb-build.log env GOFLAGS=-buildvcs=false go build -trimpath -o "$BIN/ferretdb.tmp" ./cmd/ferretdb)
  mv -f "$BIN/ferretdb.tmp" "$BIN/ferretdb"
  rm -rf "$src"
  reports_version "$BIN/ferretdb" "^version: v$FERRETDB_VERSION\$" || die "built ferretdb does not report v$FERRETDB_VERSION"
  log "installed ferretdb v$FERRETDB_VERSION"
}

# ---------------------------------------------------------------------------
# GoFakeS3, the S3-compatible server test/integration/deliverableStores.test.ts runs the S3 deliverable store
# against (issue 25 §2): the S3 REST API (objects, ranges, listings) over a folder, in one small process.
#  - `go install` from the module proxy, as the Temporal CLI: 73 s from an empty Go cache (28 s of CPU). SeaweedFS
#    (`weed mini`) was tried first: its build took 20 minutes here (2 cores, beside a test run), too long for a
#    test-only server.
#  - The module version is not in the binary's output, so a stamp file beside it records it.
# ---------------------------------------------------------------------------
GOFAKES3_VERSION=v1.2.0
gofakes3() {
  if [ -n "${GOFAKES3_PATH:-}" ]; then
    [ -x "$GOFAKES3_PATH" ] || die "GOFAKES3_PATH=$GOFAKES3_PATH is not an executable file"
    return 0
  fi
  if [ -x "$BIN/gofakes3" ] && [ "$(cat "$BIN/gofakes3.version" 2>/dev/null)" = "$GOFAKES3_VERSION" ]; then
    return 0
  fi
  need_go "GoFakeS3" GOFAKES3_PATH
  log "building GoFakeS3 $GOFAKES3_VERSION with go install (the S3 server of the deliverable store tests)"
  mkdir -p "$BIN"
  rm -f "$BIN/gofakes3.version"
  (cd / && run_logged gofakes3-build.log nice -n 15 env CGO_ENABLED=0 GOBIN="$BIN" GOFLAGS=-buildvcs=false go install \
    "github.com/johannesboyne/gofakes3/cmd/gofakes3@$GOFAKES3_VERSION")
  [ -x "$BIN/gofakes3" ] || die "go install did not produce $BIN/gofakes3"
  echo "$GOFAKES3_VERSION" > "$BIN/gofakes3.version"
  log "installed gofakes3 $GOFAKES3_VERSION"
}

# ---------------------------------------------------------------------------
# stripe-mock, Stripe's own API mock (answers from Stripe's OpenAPI and fixtures), which the Stripe adapter's tests
# run against (issue 37 §3, test/helpers/stripeMock.ts). `go install` from the module proxy: seconds. Its fixtures
# (the beta ones, which carry the shared-payment-token preview) are copied beside the binary: the tests start a
# second mock whose PaymentIntent fixture has succeeded, as a confirmed card payment does.
# ---------------------------------------------------------------------------
STRIPE_MOCK_VERSION=v0.203.0
stripe_mock() {
  if [ -n "${STRIPE_MOCK_PATH:-}" ]; then
    [ -x "$STRIPE_MOCK_PATH" ] || die "STRIPE_MOCK_PATH=$STRIPE_MOCK_PATH is not an executable file"
    return 0
  fi
  if [ -x "$BIN/stripe-mock" ] && [ "$(cat "$BIN/stripe-mock.version" 2>/dev/null)" = "$STRIPE_MOCK_VERSION" ] &&
    [ -s "$CACHE/stripe-mock/fixtures3.beta.json" ]; then
    return 0
  fi
  need_go "stripe-mock" STRIPE_MOCK_PATH
  log "building stripe-mock $STRIPE_MOCK_VERSION with go install (the Stripe adapter's tests)"
  mkdir -p "$BIN" "$CACHE/stripe-mock"
  rm -f "$BIN/stripe-mock.version"
  (cd / && run_logged stripe-mock-build.log nice -n 15 env CGO_ENABLED=0 GOBIN="$BIN" GOFLAGS=-buildvcs=false go install \
    "github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION")
  [ -x "$BIN/stripe-mock" ] || die "go install did not produce $BIN/stripe-mock"
  local fixtures
  fixtures="$(cd / && go env GOMODCACHE)/github.com/stripe/stripe-mock@$STRIPE_MOCK_VERSION/embedded/openapi/fixtures3.beta.json"
  [ -s "$fixtures" ] || die "stripe-mock fixtures not found in the Go module cache: $fixtures"
  cp "$fixtures" "$CACHE/stripe-mock/fixtures3.beta.json"
  chmod u+w "$CACHE/stripe-mock/fixtures3.beta.json"
  echo "$STRIPE_MOCK_VERSION" > "$BIN/stripe-mock.version"
  log "installed stripe-mock $STRIPE_MOCK_VERSION"
}

# ---------------------------------------------------------------------------
# Mailpit, a real SMTP server with an HTTP API to read what it received: the booking tests send the owner's
# e-mail to it (issue 38 §2, test/helpers/mailpit.ts). `go install` from the module proxy (v1.33.1 is served).
# ---------------------------------------------------------------------------
MAILPIT_VERSION=v1.33.1
mailpit() {
  if [ -n "${MAILPIT_PATH:-}" ]; then
    [ -x "$MAILPIT_PATH" ] || die "MAILPIT_PATH=$MAILPIT_PATH is not an executable file"
    return 0
  fi
  if [ -x "$BIN/mailpit" ] && [ "$(cat "$BIN/mailpit.version" 2>/dev/null)" = "$MAILPIT_VERSION" ]; then
    return 0
  fi
  need_go "mailpit" MAILPIT_PATH
  log "building Mailpit $MAILPIT_VERSION with go install (the SMTP server of the booking tests)"
  mkdir -p "$BIN"
  rm -f "$BIN/mailpit.version"
  (cd / && run_logged mailpit-build.log nice -n 15 env CGO_ENABLED=0 GOBIN="$BIN" GOFLAGS=-buildvcs=false go install \
    "github.com/axllent/mailpit@$MAILPIT_VERSION")
  [ -x "$BIN/mailpit" ] || die "go install did not produce $BIN/mailpit"
  echo "$MAILPIT_VERSION" > "$BIN/mailpit.version"
  log "installed mailpit $MAILPIT_VERSION"
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
# schemathesis (PyPI), the property-based API tester the tests run against the OpenAPI document (issue 10 §5),
# in a virtualenv of its own in the cache: $CACHE/schemathesis/bin/schemathesis.
# ---------------------------------------------------------------------------
SCHEMATHESIS_VERSION=4.32.5
schemathesis() {
  if [ -n "${SCHEMATHESIS_PATH:-}" ]; then
    [ -x "$SCHEMATHESIS_PATH" ] || die "SCHEMATHESIS_PATH=$SCHEMATHESIS_PATH is not an executable file"
    return 0
  fi
  local venv="$CACHE/schemathesis"
  if [ -x "$venv/bin/schemathesis" ] && [ "$(cat "$venv/requested.txt" 2>/dev/null)" = "$SCHEMATHESIS_VERSION" ]; then return 0; fi
  command -v python3 >/dev/null 2>&1 || die "python3 (3.10 or newer, with venv) is required for schemathesis (or set SCHEMATHESIS_PATH)"
  log "installing schemathesis $SCHEMATHESIS_VERSION from PyPI into $venv"
  rm -rf "$venv"
  run_logged schemathesis-venv.log python3 -m venv "$venv"
  run_logged schemathesis-pip.log "$venv/bin/pip" install --disable-pip-version-check -q "schemathesis==$SCHEMATHESIS_VERSION"
  echo "$SCHEMATHESIS_VERSION" > "$venv/requested.txt"
}

# ---------------------------------------------------------------------------
# The official MCP conformance suite (npm @modelcontextprotocol/conformance, issue 12 §1) and the Node 22 it needs
# (npm package node@22), in a prefix of their own in the cache: $CACHE/node22/node_modules/.bin/{node,conformance}.
# ---------------------------------------------------------------------------
NODE22_VERSION=22.23.3
MCP_CONFORMANCE_VERSION=0.2.0-alpha.12
mcp_conformance() {
  local dir="$CACHE/node22" want="node@$NODE22_VERSION @modelcontextprotocol/conformance@$MCP_CONFORMANCE_VERSION"
  if [ -x "$dir/node_modules/.bin/node" ] && [ -f "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] &&
    [ "$(cat "$dir/requested.txt" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  log "installing Node $NODE22_VERSION and @modelcontextprotocol/conformance $MCP_CONFORMANCE_VERSION from npm into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  run_logged mcp-conformance-npm.log npm install --prefix "$dir" --no-audit --no-fund --loglevel=error $want
  reports_version "$dir/node_modules/.bin/node" "^v$NODE22_VERSION\$" || die "$dir/node_modules/.bin/node does not report v$NODE22_VERSION"
  echo "$want" > "$dir/requested.txt"
}

# ---------------------------------------------------------------------------
# Debian's Chromium, the browser the human-pages test drives headless with playwright-core (which never downloads
# a browser of its own). Installed with apt-get when missing; as a non-root user only a warning, since only that
# test needs it (and fails saying so). CHROMIUM_PATH names another Chromium to use.
# ---------------------------------------------------------------------------
chromium_deb() {
  if [ -n "${CHROMIUM_PATH:-}" ]; then
    [ -x "$CHROMIUM_PATH" ] || die "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file"
    return 0
  fi
  [ -x /usr/bin/chromium ] && return 0
  command -v dpkg-query >/dev/null 2>&1 || { log "no /usr/bin/chromium and no Debian packages: the human-pages test will fail (set CHROMIUM_PATH)"; return 0; }
  if [ "$(id -u)" != 0 ]; then
    log "Debian package chromium is missing; install it as root (apt-get install -y --no-install-recommends chromium), or the human-pages test fails"
    return 0
  fi
  log "installing Debian package: chromium"
  run_logged apt-update.log apt-get update
  run_logged apt-install-chromium.log env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
  [ -x /usr/bin/chromium ] || die "still no /usr/bin/chromium after apt-get install chromium"
}

# ---------------------------------------------------------------------------
# The Temporal cluster of `npm run start:cluster` and the cluster drills (issue 25 §1): the Temporal server (not the
# CLI's dev server) and its schema tool from go.temporal.io/server, the Web UI server from temporalio/ui-server, and
# the server module's own PostgreSQL schema folders, all under $CACHE/temporal-cluster. v1.32.1 is the newest
# server release whose go.mod this machine's Go (1.26.8) builds without a toolchain download; ui-server v2.55.0 the
# same. TEMPORAL_SERVER_PATH / TEMPORAL_SQL_TOOL_PATH / TEMPORAL_UI_SERVER_PATH / TEMPORAL_SCHEMA_DIR use others.
# ---------------------------------------------------------------------------
TEMPORAL_SERVER_VERSION=1.32.1
TEMPORAL_UI_SERVER_VERSION=2.55.0

temporal_cluster() {
  local dir="$CACHE/temporal-cluster" stamp want
  want="server-$TEMPORAL_SERVER_VERSION ui-$TEMPORAL_UI_SERVER_VERSION recipe-1"
  stamp="$dir/.built"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$dir/bin/temporal-server" ] \
    && [ -x "$dir/bin/temporal-sql-tool" ] && [ -x "$dir/bin/temporal-ui-server" ] \
    && [ -d "$dir/schema/postgresql/v12/temporal/versioned" ]; then
    return 0
  fi
  need_go "the Temporal server cluster" TEMPORAL_SERVER_PATH
  log "building Temporal server v$TEMPORAL_SERVER_VERSION and ui-server v$TEMPORAL_UI_SERVER_VERSION (about 5 minutes on 2 cores)"
  mkdir -p "$dir/bin" "$dir/gobin-server" "$dir/gobin-sql" "$dir/gobin-ui"
  # Three binaries are named `server`/`sql`: each gets a GOBIN of its own, then a clear name.
  (cd / && run_logged temporal-server-build.log env GOBIN="$dir/gobin-server" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
    go install -tags disable_grpc_modules "go.temporal.io/server/cmd/server@v$TEMPORAL_SERVER_VERSION")
  (cd / && run_logged temporal-sql-tool-build.log env GOBIN="$dir/gobin-sql" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
    go install "go.temporal.io/server/cmd/tools/sql@v$TEMPORAL_SERVER_VERSION")
  (cd / && run_logged temporal-ui-server-build.log env GOBIN="$dir/gobin-ui" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
    go install "github.com/temporalio/ui-server/v2/cmd/server@v$TEMPORAL_UI_SERVER_VERSION")
  mv "$dir/gobin-server/server" "$dir/bin/temporal-server"
  mv "$dir/gobin-sql/sql" "$dir/bin/temporal-sql-tool"
  mv "$dir/gobin-ui/server" "$dir/bin/temporal-ui-server"
  rm -rf "$dir/gobin-server" "$dir/gobin-sql" "$dir/gobin-ui" "$dir/schema"
  local modsrc
  modsrc="$(cd / && go env GOMODCACHE)/go.temporal.io/server@v$TEMPORAL_SERVER_VERSION/schema/postgresql"
  [ -d "$modsrc" ] || die "schema folder not found in the Go module cache: $modsrc"
  mkdir -p "$dir/schema"
  cp -r "$modsrc" "$dir/schema/postgresql"
  chmod -R u+w "$dir/schema"
  echo "$want" > "$stamp"
  log "installed Temporal server $TEMPORAL_SERVER_VERSION, temporal-sql-tool and ui-server $TEMPORAL_UI_SERVER_VERSION in $dir"
}

# HAProxy from Debian's package: the load balancer in front of the API replicas of the cluster profile.
haproxy_deb() {
  [ -n "${HAPROXY_PATH:-}" ] && return 0
  [ -x /usr/sbin/haproxy ] && return 0
  command -v dpkg-query >/dev/null 2>&1 || die "the cluster profile needs HAProxy: install it or set HAPROXY_PATH"
  [ "$(id -u)" = 0 ] || die "Debian package haproxy is missing; install it as root (apt-get install -y --no-install-recommends haproxy) or set HAPROXY_PATH"
  log "installing Debian package: haproxy"
  run_logged apt-update.log apt-get update
  run_logged apt-install-haproxy.log env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy
  [ -x /usr/sbin/haproxy ] || die "still no /usr/sbin/haproxy after apt-get install haproxy"
}

# Prometheus from Debian's package (issue 39 §1): npm run start:cluster scrapes every process with it, and the
# tests check the alert rules with its promtool and make an alert fire in it. Only the binaries are used (no service).
prometheus_deb() {
  [ -n "${PROMETHEUS_PATH:-}" ] && return 0
  [ -x /usr/bin/prometheus ] && [ -x /usr/bin/promtool ] && return 0
  command -v dpkg-query >/dev/null 2>&1 || die "the metrics tests need Prometheus: install it or set PROMETHEUS_PATH and PROMTOOL_PATH"
  [ "$(id -u)" = 0 ] || die "Debian package prometheus is missing; install it as root (apt-get install -y --no-install-recommends prometheus) or set PROMETHEUS_PATH"
  log "installing Debian package: prometheus"
  run_logged apt-update.log apt-get update
  run_logged apt-install-prometheus.log env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus
  [ -x /usr/bin/prometheus ] || die "still no /usr/bin/prometheus after apt-get install prometheus"
}

# ---------------------------------------------------------------------------
# In a function, so bash has read the whole file before anything runs.
main() {
  node_deps
  if [ "${SKIP_SERVER_SETUP:-}" != "1" ]; then
    temporal_cli
    if [ "${SKIP_DATABASE_SETUP:-}" != "1" ]; then
      pg_debs
      pg_extensions
      ferretdb
    fi
    temporal_test_server
    temporal_cluster
    haproxy_deb
    prometheus_deb
    gofakes3
    stripe_mock
    mailpit
    schemathesis
    mcp_conformance
    chromium_deb
  fi
}

main "$@"
