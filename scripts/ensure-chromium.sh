#!/usr/bin/env bash
# ensure-chromium.sh makes sure a headless-capable chromium is on PATH, for
# the browser test of `wolong explain --html` (report's TestHTMLInBrowser).
# It installs Debian's chromium package with apt-get when it is missing and
# the script runs as root on a machine with apt; otherwise it prints one
# line and exits non-zero (the Go test then skips with a message).
set -u
for c in chromium chromium-browser; do
  if command -v "$c" >/dev/null 2>&1; then
    exit 0
  fi
done
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: chromium is missing and cannot be installed here (needs root and apt-get)" >&2
  exit 1
fi
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/tmp/ensure-chromium.log 2>&1; then
  echo "ensure-chromium: apt-get install chromium failed (see /tmp/ensure-chromium.log)" >&2
  exit 1
fi
command -v chromium >/dev/null 2>&1 || { echo "ensure-chromium: chromium installed but not on PATH" >&2; exit 1; }
