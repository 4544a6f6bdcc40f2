#!/bin/sh
# Installs the project's npm dependencies exactly as package-lock.json pins them (npm ci), but only
# when they are missing or the lock file changed since the last install, so `npm start` and
# `npm test` stay fast on a machine that already has them.
set -eu
cd "$(dirname "$0")/.."
stamp=node_modules/.nodectl-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
echo "nodectl: installing dependencies (npm ci)..." >&2
npm ci --no-audit --no-fund >&2
echo "$want" > "$stamp"
