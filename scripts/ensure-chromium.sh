#!/usr/bin/env bash
# Installs Debian's chromium for the end-to-end tests when it is missing. Playwright's own browser download
# cannot work here (no network but the package registries), so the tests drive /usr/bin/chromium.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: /usr/bin/chromium is missing and apt-get is not available; install Chromium by hand." >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "ensure-chromium: installing Debian chromium…"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium fonts-liberation >/dev/null
/usr/bin/chromium --version
