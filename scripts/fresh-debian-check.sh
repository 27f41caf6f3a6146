#!/usr/bin/env bash
# A newcomer's first run on a fresh Debian 12 (bookworm), end to end: the README's set-up command
# installs and starts Rampart, and a site in block mode behind nginx blocks an SQL injection.
# Not part of `npm test` (it needs root and Debian's package mirror, and takes several minutes).
#
#   sudo bash scripts/fresh-debian-check.sh            # on a Debian / Ubuntu host with debootstrap
#
# What it does:
#   1. Builds a fresh bookworm root file system with debootstrap in $FRESH_DEBIAN_DIR (default
#      /tmp/fresh-debian-<time>), with git and ca-certificates (what a newcomer needs to clone).
#   2. Puts the host's Node.js (>= 20.19: `node` and its npm) into it at /usr/bin and
#      /usr/lib/node_modules/npm: it stands for the newcomer's own Node 20 install (bookworm ships 18).
#   3. Inside the chroot: `git clone` of this repository's committed HEAD (a git bundle) to
#      /root/rampart, with no ../shared beside it, then the README's set-up command:
#      `npm run setup:system && npm install`, and `npm start` in the background.
#   4. Runs the appliance in a private network namespace (only loopback; nothing binds on the host):
#      first-run setup through the API, the rule set loaded (Debian's modsecurity-crs), a block-mode
#      plugin site, its nginx bundle installed into Debian's nginx as the bundle's README says, the
#      bundle's keeper, a python3 http.server upstream, then curl through nginx: `GET /` (a client
#      without a token gets the reload page, 412) and `GET /?id=1' or 1=1--` (the block page, 400;
#      guard_status OWASP, rule 942100), each shown in nginx's access log and the engine's access log.
#   5. Stops every process it started (by PID), reads the site's access records from the log store,
#      and unmounts everything (a trap does it on failure too). Exit status 0 only if every check held.
#
# Settings (environment):
#   FRESH_DEBIAN_DIR     work folder (kept for inspection; delete it afterwards)
#   FRESH_DEBIAN_MIRROR  Debian mirror for debootstrap (default http://deb.debian.org/debian)
#   FRESH_DEBIAN_BASE    a pristine debootstrap root to copy instead of running debootstrap (faster re-runs)
#   FRESH_DEBIAN_NODE    the Node.js binary to install (default: `command -v node`)
#   FRESH_DEBIAN_CA_DIR  certificate authorities the network needs (a TLS-inspecting proxy's), default the
#                        host's /usr/local/share/ca-certificates: put into the chroot's system store, and
#                        NODE_EXTRA_CA_CERTS points npm at it (the chroot uses the host's network)
#   FRESH_DEBIAN_ENV     extra VAR=value words for the set-up command, e.g.
#                        "ELECTRON_SKIP_BINARY_DOWNLOAD=1" where the Electron download cannot be reached:
#                        npm 11.16 or newer honours package.json's `allowScripts` (electron: false) and
#                        skips it, but Node 20's own npm 10 runs Electron's install script, which fetches
#                        the Electron binary from GitHub
#
# Not covered: systemd (the chroot starts no services: a policy-rc.d keeps apt from starting nginx on
# the host's port 80), a real browser passing the probe (chromium is installed but not driven), other
# distributions, and `npm test` on the fresh clone.
set -euo pipefail

SELF="$(readlink -f "${BASH_SOURCE[0]}")"
REPO="$(git -C "$(dirname "$SELF")" rev-parse --show-toplevel)"
WORK="${FRESH_DEBIAN_DIR:-/tmp/fresh-debian-$(date +%Y%m%d-%H%M%S)}"
ROOT="$WORK/rootfs"
MIRROR="${FRESH_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NODE_BIN="$(readlink -f "${FRESH_DEBIAN_NODE:-$(command -v node)}")"
NPM_DIR="$(dirname "$NODE_BIN")/../lib/node_modules/npm"
EXTRA_ENV="${FRESH_DEBIAN_ENV:-}"
CA_DIR="${FRESH_DEBIAN_CA_DIR:-/usr/local/share/ca-certificates}"

say() { printf '[fresh-debian %4ss] %s\n' "$SECONDS" "$*"; }
die() {
  say "FAILED: $*"
  exit 1
}

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot and mounts need it)"
command -v debootstrap >/dev/null || die "install debootstrap first: apt-get install -y debootstrap"
command -v unshare >/dev/null || die "unshare (util-linux) is missing"
[ -x "$NODE_BIN" ] || die "no Node.js binary at $NODE_BIN (set FRESH_DEBIAN_NODE)"
[ -f "$NPM_DIR/bin/npm-cli.js" ] || die "no npm beside $NODE_BIN (looked in $NPM_DIR)"
"$NODE_BIN" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' ||
  die "$NODE_BIN is Node $("$NODE_BIN" -v); the README asks for 20.19 or newer"
[ -e "$WORK" ] && die "$WORK exists; choose another FRESH_DEBIAN_DIR"

mkdir -p "$WORK"
LOG="$WORK/logs"
mkdir -p "$LOG"
exec > >(tee "$LOG/check.log") 2>&1
say "work folder $WORK; repository $REPO at $(git -C "$REPO" rev-parse --short HEAD)"

# --- mounts, and the trap that undoes them (and stops whatever is still running in the chroot) ---
MOUNTS=()
cleanup() {
  local status=$?
  set +e
  for proc in /proc/[0-9]*; do
    [ "$(readlink "$proc/root" 2>/dev/null)" = "$ROOT" ] || continue
    say "NOT OK: leftover chroot process ${proc#/proc/} ($(tr '\0' ' ' <"$proc/cmdline" | cut -c1-80)); stopping it"
    kill "${proc#/proc/}" 2>/dev/null
    status=1
  done
  sleep 1
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount -R "${MOUNTS[$i]}" 2>/dev/null || umount -R -l "${MOUNTS[$i]}"
  done
  if grep -q " $ROOT" /proc/mounts; then
    say "still mounted under $ROOT:"
    grep " $ROOT" /proc/mounts
    status=1
  else
    say "unmounted everything under $ROOT"
  fi
  if [ "$status" = 0 ]; then say "PASSED (work folder $WORK kept for inspection)"; else say "FAILED (exit $status; logs in $LOG)"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mount_in() { # mount_in <target under ROOT> <mount arguments...>
  local target="$ROOT$1"
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  MOUNTS+=("$target")
}

# --- 1. a fresh Debian bookworm --------------------------------------------------------------------
t0=$SECONDS
if [ -n "${FRESH_DEBIAN_BASE:-}" ]; then
  say "copying the pristine root $FRESH_DEBIAN_BASE"
  cp -a "$FRESH_DEBIAN_BASE" "$ROOT"
else
  say "debootstrap bookworm from $MIRROR"
  debootstrap --include=git,ca-certificates bookworm "$ROOT" "$MIRROR" >"$LOG/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $LOG/debootstrap.log"
fi
T_ROOT=$((SECONDS - t0))
say "root file system ready ($((SECONDS - t0)) s): Debian $(cat "$ROOT/etc/debian_version")"

mount_in /proc -t proc proc
mount_in /sys -t sysfs sysfs
mount_in /dev --rbind /dev
mount --make-rslave "$ROOT/dev"
mount_in /run/shm -t tmpfs -o mode=1777 shm
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# A chroot must not start services on the host (apt would start nginx on the host's port 80).
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod 755 "$ROOT/usr/sbin/policy-rc.d"

# The host's network may need local certificate authorities (a TLS-inspecting proxy): trust them here too.
if compgen -G "$CA_DIR/*.crt" >/dev/null; then
  cp "$CA_DIR"/*.crt "$ROOT/usr/local/share/ca-certificates/"
  chroot "$ROOT" update-ca-certificates >/dev/null 2>&1
  EXTRA_ENV="NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt${EXTRA_ENV:+ $EXTRA_ENV}"
  say "trusting the network's certificate authorities from $CA_DIR: $(cd "$CA_DIR" && echo *.crt)"
fi

# --- 2. the newcomer's Node.js 20 (the host's binary and npm) -------------------------------------
install -m 755 "$NODE_BIN" "$ROOT/usr/bin/node"
mkdir -p "$ROOT/usr/lib/node_modules"
cp -a "$NPM_DIR" "$ROOT/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/bin/npx"

in_root() { # a login-like environment: nothing of the host's (or npm's) variables leaks in
  chroot "$ROOT" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
say "Node in the chroot: $(in_root node -v), npm $(in_root npm -v)"

# --- 3. clone, and the README's set-up command ----------------------------------------------------
branch="$(git -C "$REPO" branch --show-current)"
git -C "$REPO" bundle create "$ROOT/root/rampart.bundle" HEAD ${branch:+"$branch"} 2>/dev/null
in_root bash -c 'cd /root && git clone -q rampart.bundle rampart && rm rampart.bundle'
[ -e "$ROOT/root/shared" ] && die "/root/shared exists beside the clone"
say "cloned $(in_root git -C /root/rampart log --oneline -1); no ../shared beside it"

readme_cmd="$(sed -n '/^## Set up/,/^## /p' "$ROOT/root/rampart/README.md" | grep -m1 '^npm ')"
say "README set-up command: $readme_cmd"
[ "$readme_cmd" = "npm run setup:system && npm install && npm start" ] ||
  die "the README's set-up command changed; update this script"

t0=$SECONDS
say "npm run setup:system ${EXTRA_ENV:+(with $EXTRA_ENV)}"
in_root $EXTRA_ENV bash -c 'cd /root/rampart && npm run setup:system' 2>&1 | tee "$LOG/setup-system.log" |
  sed 's/^/    /'
[ "${PIPESTATUS[0]}" = 0 ] || die "npm run setup:system failed"
T_SETUP=$((SECONDS - t0))
say "setup:system done ($((SECONDS - t0)) s)"

t0=$SECONDS
say "npm install ${EXTRA_ENV:+(with $EXTRA_ENV)}"
if ! in_root $EXTRA_ENV bash -c 'cd /root/rampart && npm install' >"$LOG/npm-install.log" 2>&1; then
  tail -n 30 "$LOG/npm-install.log" | sed 's/^/    /'
  die "npm install failed ($((SECONDS - t0)) s); see $LOG/npm-install.log"
fi
tail -n 4 "$LOG/npm-install.log" | sed 's/^/    /'
T_INSTALL=$((SECONDS - t0))
say "npm install done ($((SECONDS - t0)) s)"

# --- 4. npm start and the checks, in a private network namespace ---------------------------------
sed -n '/^# >>> inner$/,/^# <<< inner$/p' "$SELF" | sed '1d;$d' >"$ROOT/root/fresh-debian-inner.sh"
say "starting the appliance and nginx in a private network namespace (loopback only)"
inner_status=0
t0=$SECONDS
unshare --net -- /bin/sh -c 'ip link set lo up && exec "$@"' sh \
  chroot "$ROOT" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin $EXTRA_ENV \
  bash /root/fresh-debian-inner.sh || inner_status=$?
cp -r "$ROOT/root/fresh-logs/." "$LOG/" 2>/dev/null || true
say "timings: root file system ${T_ROOT} s, setup:system ${T_SETUP} s, npm install ${T_INSTALL} s, start and checks $((SECONDS - t0)) s"
exit "$inner_status"

# The part that runs inside the chroot, in the private network namespace.
# >>> inner
set -uo pipefail
LOGS=/root/fresh-logs
mkdir -p "$LOGS"
say() { printf '[fresh-debian inner] %s\n' "$*"; }
PIDS=()
declare -A NAMES
failures=0
check() { # check <description> <command...>: records a failure, carries on
  local what="$1"
  shift
  if "$@"; then say "ok: $what"; else
    say "NOT OK: $what"
    failures=$((failures + 1))
  fi
}
stop_all() { # SIGTERM to each process started here, newest first; nginx by its pid file
  local pid
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    pid=${PIDS[$i]}
    # the keeper's sleep first: a shell killed while it waits for it would leave it behind
    [ "$pid" = "${KEEPER:-}" ] && kill $(ps -o pid= --ppid "$pid") 2>/dev/null
    kill "$pid" 2>/dev/null && say "sent SIGTERM to pid $pid (${NAMES[$pid]:-})"
  done
  if [ -f /run/nginx.pid ]; then
    pid="$(cat /run/nginx.pid)"
    kill -QUIT "$pid" 2>/dev/null && say "sent SIGQUIT to nginx (master pid $pid)"
  fi
  PIDS=()
  # npm start's engine stops on its own once npm is gone: wait until nothing listens any more.
  for _ in $(seq 75); do [ -z "$(ss -ltnH)" ] && break; sleep 0.2; done
}
trap stop_all EXIT
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s);console.log(eval(process.argv[1]))})' "$1"; }

CONSOLE=http://127.0.0.1:9080
DOMAIN=shop.example.test
UPSTREAM_PORT=8000
EMAIL=admin@example.test
PASSWORD='Fresh-Deb1an!'

say "listening before start: $(ss -ltnH | wc -l) sockets"

# The application nginx protects: a small static site.
mkdir -p /srv/shop
printf '<!doctype html><html><head><title>Shop</title></head><body><h1>shop upstream</h1></body></html>\n' \
  >/srv/shop/index.html
python3 -m http.server "$UPSTREAM_PORT" --bind 127.0.0.1 --directory /srv/shop >"$LOGS/upstream.log" 2>&1 &
PIDS+=($!)
NAMES[$!]="python3 http.server"
say "upstream python3 http.server on 127.0.0.1:$UPSTREAM_PORT (pid $!)"

# npm start, in the background, as the README's command ends.
start=$SECONDS
(cd /root/rampart && exec npm start) >"$LOGS/engine.log" 2>&1 &
PIDS+=($!)
NAMES[$!]="npm start"
NPM_PID=$!
say "npm start (pid $!)"
up=0
for _ in $(seq 600); do
  if curl -fsS -o /dev/null "$CONSOLE/api/v1/health" 2>/dev/null; then up=1; break; fi
  kill -0 "$NPM_PID" 2>/dev/null || break
  sleep 0.5
done
if [ "$up" != 1 ]; then
  tail -n 40 "$LOGS/engine.log"
  say "NOT OK: the console did not answer on $CONSOLE"
  exit 1
fi
say "console answers on $CONSOLE after $((SECONDS - start)) s (build included): $(curl -sS "$CONSOLE/api/v1/health")"
ss -ltnH | awk '{print "    listening: " $4}'
page=$(curl -sS -o /dev/null -w '%{http_code} %{content_type}' "$CONSOLE/")
say "GET $CONSOLE/ -> $page"
check "the console page is served" test "${page%% *}" = 200

# 1. First-run setup, as the console does it: the session cookie, then the CSRF header.
setup=$(curl -sS "$CONSOLE/api/v1/setup")
say "GET /api/v1/setup -> $setup"
check "first-run setup is needed" test "$(json 'v.needed' <<<"$setup")" = true
jar=$LOGS/cookies.txt
status=$(curl -sS -c "$jar" -o "$LOGS/setup.json" -w '%{http_code}' -H 'content-type: application/json' \
  -d "{\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\"}" "$CONSOLE/api/v1/setup")
say "POST /api/v1/setup -> $status $(cut -c1-200 "$LOGS/setup.json")"
check "setup answers 201" test "$status" = 201
CSRF=$(json 'v.csrfToken' <"$LOGS/setup.json")
api() { # api <method> <path> [json body]: signed in, with the CSRF header on writes
  local args=(-sS -b "$jar" -c "$jar" -X "$1" -H "x-csrf-token: $CSRF")
  [ $# -ge 3 ] && args+=(-H 'content-type: application/json' -d "$3")
  curl "${args[@]}" "$CONSOLE/api/v1$2"
}
ruleset=$(api GET /rule-set)
say "GET /api/v1/rule-set -> $(json '`state=${v.state} source=${v.source} dir=${v.dir} version=${v.version} rules=${v.ruleCount} problems=${v.problems.length}`' <<<"$ruleset")"
check "a rule set is loaded (Debian's modsecurity-crs)" test "$(json 'v.state' <<<"$ruleset")" = loaded

# 2. A block-mode site with plugin access, and its nginx bundle.
site=$(api POST /sites "{\"name\":\"Shop\",\"domain\":\"$DOMAIN\",\"runMode\":\"block\",\"accessMethod\":\"plugin\"}")
SITE_ID=$(json 'v.id' <<<"$site")
say "POST /api/v1/sites -> id=$SITE_ID $(json '`runMode=${v.runMode} accessMethod=${v.accessMethod} domain=${v.domain}`' <<<"$site")"
check "the site was created in block mode" test "$(json 'v.runMode' <<<"$site")" = block
say "gateway address: $(api GET /gateway-address)"
status=$(curl -sS -b "$jar" -o "$LOGS/plugin.tar.gz" -w '%{http_code} %{content_type}' "$CONSOLE/api/v1/sites/$SITE_ID/plugin")
say "GET /api/v1/sites/$SITE_ID/plugin -> $status, $(stat -c %s "$LOGS/plugin.tar.gz") bytes"
tar -tvzf "$LOGS/plugin.tar.gz" | sed 's/^/    /'

# The bundle's README, step by step.
rm -rf /tmp/bundle && mkdir /tmp/bundle && tar -xzf "$LOGS/plugin.tar.gz" -C /tmp/bundle
bundle=$(echo /tmp/bundle/rampart-nginx-*)
sed -n '/^## Install/,/^## How/p' "$bundle/README.md" | sed 's/^/    | /'
mkdir -p /etc/nginx/rampart
cp -a "$bundle/." /etc/nginx/rampart/ # 1. copy the folder to /etc/nginx/rampart/
# 2. in the http {} block (Debian's nginx.conf includes conf.d/*.conf there); the log format only
#    shows each request's verdict in the access log.
cat >/etc/nginx/conf.d/rampart.conf <<'EOF'
include /etc/nginx/rampart/rampart-upstream.conf;
log_format rampart '$remote_addr "$request" $status guard=$rampart_guard';
EOF
# 3. and 4. the site's server block.
cat >/etc/nginx/sites-available/shop <<EOF
server {
    listen 80;
    server_name $DOMAIN;
    access_log /var/log/nginx/shop.access.log rampart;
    include /etc/nginx/rampart/rampart-site.conf;
    location / {
        include /etc/nginx/rampart/rampart-protect.conf;
        proxy_pass http://127.0.0.1:$UPSTREAM_PORT;
    }
}
EOF
ln -sf ../sites-available/shop /etc/nginx/sites-enabled/shop
# 5. nginx -t, then nginx (reload: it was not running, the chroot starts no services).
nginx -t 2>&1 | sed 's/^/    nginx -t: /'
check "nginx -t" nginx -t -q
nginx
sleep 0.5
say "nginx started (master pid $(cat /run/nginx.pid 2>/dev/null))"
# 6. the keeper.
sh /etc/nginx/rampart/rampart-keeper.sh /etc/nginx/rampart/config.json >"$LOGS/keeper.log" 2>&1 &
PIDS+=($!)
KEEPER=$!
NAMES[$!]="rampart-keeper.sh"
say "rampart-keeper.sh (pid $!)"
sleep 4
conn=$(api POST "/sites/$SITE_ID/connection-test")
say "POST /api/v1/sites/$SITE_ID/connection-test -> $conn"

# 3. Through nginx.
through() { # through <path> [curl args...]: prints "status bytes"
  local path="$1"
  shift
  curl -sS -o "$LOGS/last-body.html" -w '%{http_code} %{size_download}' -H "Host: $DOMAIN" "$@" "http://127.0.0.1$path"
}
r=$(through /)
say "GET / (curl, no token) -> $r: $(grep -o '<title>[^<]*</title>' "$LOGS/last-body.html")$(grep -o 'probe.js[^"]*' "$LOGS/last-body.html" | head -1 | sed 's/^/, script /')"
check "a first-time client gets the reload (probe) page, 412" test "${r%% *}" = 412
r=$(through "/?id=1'%20or%201=1--")
say "GET /?id=1'%20or%201=1-- -> $r: $(grep -o '<title>[^<]*</title>' "$LOGS/last-body.html")"
check "the SQL injection gets the block page, 400" test "${r%% *}" = 400
r=$(through "/?id=1'%20or%201=1--" -A 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')
say "GET /?id=1'%20or%201=1-- again, browser user agent -> $r: $(grep -o '<title>[^<]*</title>' "$LOGS/last-body.html")"
check "the same client is blocked again (a plugin client is denied a minute after a rule fired)" test "${r%% *}" = 400
r=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$UPSTREAM_PORT/")
say "upstream directly -> $r"
say "nginx access log:"
sed 's/^/    /' /var/log/nginx/shop.access.log
check "the block was the verdict's (guard=OWASP in nginx's log)" grep -q "1=1--.* 400 guard=OWASP" /var/log/nginx/shop.access.log

stop_all
trap - EXIT
left=$(ss -ltnpH)
[ -n "$left" ] && printf '    still listening: %s\n' "$left"
check "every process started here has stopped (nothing listens; npm start's engine went with npm)" test -z "$left"
grep -q '"engine stopped"' "$LOGS/engine.log" && say "engine log: $(grep '"engine stopped"' "$LOGS/engine.log")"

# The access records the engine wrote (its log store, read after it stopped).
records=$(cd /root/rampart && node --input-type=module -e '
import { ClassicLevel } from "classic-level";
const db = new ClassicLevel(process.env.HOME + "/.rampart/logs", { keyEncoding: "buffer", valueEncoding: "utf8" });
await db.open();
const prefix = Buffer.from(`access:${process.argv[1]}\x00`);
const fields = ["request", "user_agent", "status", "guard_status", "action", "waf_triggered_rules", "waf_triggered_score", "waf_rule_set"];
for await (const [, value] of db.iterator({ gte: prefix, lt: Buffer.concat([prefix, Buffer.alloc(12, 255)]) }))
  for (const line of value.split("\n").filter(Boolean)) {
    const r = JSON.parse(line);
    console.log(JSON.stringify(Object.fromEntries(fields.map((f) => [f, r[f]]))));
  }
await db.close();
' "$SITE_ID" 2>&1)
sed 's/^/    access record: /' <<<"$records"
check "the access log holds the blocked request: guard_status OWASP, rule 942100 (SQL injection)" \
  grep -q "1=1--.*\"guard_status\":\"OWASP\",\"action\":\"block\",\"waf_triggered_rules\":\"[0-9,]*942100" <<<"$records"

if [ "$failures" != 0 ]; then
  say "$failures check(s) failed"
  exit 1
fi
say "every check held"
# <<< inner
