#!/usr/bin/env bash
# `npm run setup:system`: checks the operating-system packages Rampart and its tests use and, on
# Debian / Ubuntu (apt), installs the missing ones (with sudo when not root). .ci/run calls it too.
#
#   modsecurity-crs                 the OWASP Core Rule Set 3.3.x the engine loads on first start
#   nginx, libnginx-mod-http-modsecurity
#                                   the gateway the integration tests and CRS regression run put
#                                   in front of Rampart, and nginx + ModSecurity for bench:waf
#   caddy, haproxy                  the forward-auth gateways tested end to end with their bundles
#   chromium, fonts-noto-cjk        the browser tests (the console in Chinese needs the CJK fonts)
#   curl, python3, python3-venv     the security run (schemathesis in a project-local virtualenv)
#   rsyslog, rsyslog-gnutls, unzip  the log intake tests: a real rsyslogd sends over TLS with a
#                                   downloaded certificate bundle (a zip)
#   openjdk-17-jre-headless, maven  a real Apache Kafka broker for the Kafka intake tests
#                                   (../shared/kafka fetches its jars through Maven)
#   libjemalloc2                    the allocator the engine process runs with when present
#                                   (scripts/engine-allocator.mjs): memory freed after a burst
#                                   goes back to the system; without it, glibc's malloc
#
#   scripts/install-system-packages.sh [--check]
#
# --check only reports. Without apt (another OS), or without root and sudo, it says what to install
# and exits 0: nothing here is needed to run the appliance, only to run every test. Under CI=true
# a package still missing at the end is an error.
set -euo pipefail

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

missing=()
has_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
need() { # need <package> <test that is true when it is present>
  local pkg="$1"
  shift
  if "$@" >/dev/null 2>&1; then return 0; fi
  missing+=("$pkg")
}

check_all() {
  missing=()
  need modsecurity-crs test -d /usr/share/modsecurity-crs/rules
  need nginx test -x /usr/sbin/nginx
  need libnginx-mod-http-modsecurity test -e /usr/share/nginx/modules-available/mod-http-modsecurity.conf
  need caddy test -x /usr/bin/caddy
  need haproxy test -x /usr/sbin/haproxy
  need chromium test -x /usr/bin/chromium
  need fonts-noto-cjk has_pkg fonts-noto-cjk
  need curl command -v curl
  need python3 command -v python3
  need python3-venv python3 -c 'import ensurepip, venv'
  need rsyslog test -x /usr/sbin/rsyslogd
  need rsyslog-gnutls has_pkg rsyslog-gnutls
  need unzip command -v unzip
  need openjdk-17-jre-headless command -v java
  need maven command -v mvn
  need libjemalloc2 has_pkg libjemalloc2
}

check_all
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup:system: every system package the tests need is present"
  exit 0
fi
echo "setup:system: missing: ${missing[*]}"

SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO="none"; fi
fi

if [ "$check_only" = 1 ] || ! command -v apt-get >/dev/null 2>&1 || [ "$SUDO" = "none" ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup:system: this host has no apt-get (Debian / Ubuntu). Install the equivalents of: ${missing[*]}"
    echo "  (the engine runs without them; tests that need one skip and say so, and CI fails on such a skip)"
  else
    echo "setup:system: to install them, as root: apt-get install --no-install-recommends ${missing[*]}"
  fi
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
fi

[ "$SUDO" = "sudo" ] && echo "setup:system: installing with sudo (it may ask for your password)"
if ! { $SUDO apt-get update -qq &&
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
  echo "setup:system: apt-get install failed; as root: apt-get install --no-install-recommends ${missing[*]}"
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 0
fi

check_all
if [ ${#missing[@]} -gt 0 ]; then
  # Ubuntu's chromium package installs a snap, not /usr/bin/chromium: the browser tests need the deb.
  echo "setup:system: still missing after apt-get install: ${missing[*]}"
  exit 1
fi
echo "setup:system: installed; every system package the tests need is present"
