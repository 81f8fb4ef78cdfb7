#!/bin/sh
# The system parts the tests need beside node_modules, checked before `npm test` runs anything:
# - Debian's chromium at /usr/bin/chromium: the report's browser test opens the page in it (playwright-core
#   cannot download its own browser here);
# - the AWS CLI (`aws`): the tests run the `aws dynamodb query` that `shieldwatch store --aws` prints.
# Missing parts are installed with apt-get when this runs as root (or with passwordless sudo); otherwise it
# stops at once, before minutes of tests, with the one command that installs them. npm test and .ci/run both
# call this script, so the list lives here only.
set -eu

missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v aws >/dev/null 2>&1 || missing="$missing awscli"
[ -z "$missing" ] && exit 0

install="apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q$missing"
if [ "$(id -u)" -eq 0 ]; then
  echo "system-deps: installing$missing (Debian packages the tests need)" >&2
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  echo "system-deps: installing$missing with sudo (Debian packages the tests need)" >&2
  sudo sh -c "$install"
else
  echo "system-deps: the tests need the Debian packages$missing, which are missing; install them as root:" >&2
  echo "  sudo sh -c 'apt-get update && apt-get install -y$missing'" >&2
  exit 1
fi
[ -x /usr/bin/chromium ] && command -v aws >/dev/null 2>&1 || {
  echo "system-deps:$missing still missing after apt-get install" >&2
  exit 1
}
