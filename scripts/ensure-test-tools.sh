#!/bin/sh
# The test suite checks nodectl's output with outside tools: promtool (Prometheus) for /metrics and
# xmllint for sitemap-ai.xml, curl, which the README walk-through (run by the tests) uses, and zsh
# and fish, whose parsers check `nodectl completion`, and systemd-analyze (package systemd), which
# checks docs/nodectl.service, and chromium, the real browser the web console's tests drive
# (test/e2e/console.process.test.ts, through playwright-core), and PostgreSQL, whose throw-away
# server the controlStore tests run against (test/helpers/postgres.ts; its binaries live in
# /usr/lib/postgresql/<major>/bin, off the PATH). Installs them from Debian's packages when they
# are missing.
set -eu
missing=""
command -v promtool >/dev/null 2>&1 || missing="$missing prometheus"
command -v xmllint >/dev/null 2>&1 || missing="$missing libxml2-utils"
command -v curl >/dev/null 2>&1 || missing="$missing curl"
command -v zsh >/dev/null 2>&1 || missing="$missing zsh"
command -v fish >/dev/null 2>&1 || missing="$missing fish"
command -v systemd-analyze >/dev/null 2>&1 || missing="$missing systemd"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
[ -z "$missing" ] && exit 0
echo "nodectl: installing test tools:$missing" >&2
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
  echo "nodectl: please install$missing (Debian/Ubuntu: apt-get install$missing)" >&2; exit 1
fi
$sudo apt-get update -qq >&2
# The prometheus package's service is not needed: only its promtool binary. Nor is postgresql's
# own cluster: the tests make their own (where a container has no init, none is started).
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
