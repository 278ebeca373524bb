#!/bin/sh
# install.sh DEST: the test-time npm tools (package.json, package-lock.json
# beside this script) into DEST/node_modules with `npm ci`, once per lock
# file. Prints one line and exits 1 when they cannot be installed (no npm,
# registry unreachable): the tests that need them skip with that line.
set -u
src=$(cd "$(dirname "$0")" && pwd)
dest=$1
command -v npm >/dev/null 2>&1 || { echo "npm not found (make deps installs it)"; exit 1; }
mkdir -p "$dest" || { echo "cannot create $dest"; exit 1; }
if [ -f "$dest/node_modules/.latrec-lock" ] && cmp -s "$src/package-lock.json" "$dest/node_modules/.latrec-lock"; then
    exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dest/" || { echo "cannot write $dest"; exit 1; }
# PUPPETEER_SKIP_DOWNLOAD: the system chromium is used, never a browser
# download; --ignore-scripts: no install scripts at all.
if ! (cd "$dest" && PUPPETEER_SKIP_DOWNLOAD=1 timeout 300 npm ci --ignore-scripts --no-audit --no-fund \
        >npm-ci.log 2>&1); then
    echo "npm ci failed (registry unreachable?): $(grep -m1 -i 'err' "$dest/npm-ci.log" || tail -1 "$dest/npm-ci.log")"
    exit 1
fi
cp "$src/package-lock.json" "$dest/node_modules/.latrec-lock"
