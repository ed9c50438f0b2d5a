#!/usr/bin/env bash
# Put a club's Bourré books online on one Debian 12, Ubuntu 24.04 or Raspberry Pi OS
# machine, with the distribution's own PostgreSQL, Redis and Caddy:
#
#   sudo deploy/install.sh --domain bourre.example.com   # public name: Let's Encrypt
#   sudo deploy/install.sh --lan bourre.local            # home network: Caddy's own CA
#   sudo deploy/install.sh                               # asks which
#   deploy/install.sh --dry-run --lan bourre.local       # prints every step, changes nothing
#
# First run: installs the packages, creates the `bourre` system user, copies this checkout
# to /srv/bourre/app, makes the virtualenv /srv/bourre/venv, writes /etc/bourre/env (a
# generated DJANGO_SECRET_KEY, mode 0600), creates the PostgreSQL role and database
# (peer authentication: no password anywhere), collects the static files, migrates,
# writes /etc/caddy/Caddyfile and the systemd units (deploy/systemd) and starts them.
#
# Running it again, from a newer checkout, upgrades: a backup first (kept with the
# nightly ones in /var/backups/bourre), then the new code and dependencies, migrate,
# restart. The database, the secret key and any line added to /etc/bourre/env are kept;
# the name given the first time is remembered (/etc/bourre/install.conf).
#
# Other options: --email ADDR (Let's Encrypt's contact), --keep N (nightly backups kept,
# 14), --yes (never ask), --print caddyfile|env|UNIT (print a rendered file, the secret key
# left out, and stop; tests/test_bar_i32_server.py reads them), --no-systemd, --help.
#
# Without systemd (a chroot or a container; found by itself, or --no-systemd): PostgreSQL
# and Redis start from Debian's init scripts, the units are written but not enabled, and
# the script prints the commands that start the web app, the worker and Caddy by hand.
set -euo pipefail
# Bash 5.2 would put the matched text wherever a replacement below contains "&".
shopt -u patsub_replacement 2>/dev/null || true

SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPLOY_DIR="$SRC_DIR/deploy"

# Where things go. The BOURRE_* overrides exist for tests (a dry run against a fake
# /etc/bourre, a Caddyfile for unprivileged ports); a real install keeps the defaults,
# which the README names.
USER_NAME="bourre"
ETC_DIR="${BOURRE_ETC_DIR:-/etc/bourre}"
ENV_FILE="$ETC_DIR/env"
CONF_FILE="$ETC_DIR/install.conf"
HOME_DIR="${BOURRE_HOME_DIR:-/srv/bourre}"
APP_DIR="$HOME_DIR/app"
VENV_DIR="$HOME_DIR/venv"
BACKUP_DIR="${BOURRE_BACKUP_DIR:-/var/backups/bourre}"
# The nightly check_books leaves its result here for /metrics (the code's folder is root's).
STATE_DIR="${BOURRE_STATE_DIR:-/var/lib/bourre}"
UNIT_DIR="${BOURRE_UNIT_DIR:-/etc/systemd/system}"
CADDYFILE="${BOURRE_CADDYFILE:-/etc/caddy/Caddyfile}"
CADDY_PKI="${BOURRE_CADDY_PKI:-/var/lib/caddy/.local/share/caddy/pki/authorities/local}"
MANAGE_BIN="/usr/local/bin/bourre-manage"
PORT="${BOURRE_PORT:-8001}"
DB_NAME="bourre"
PACKAGES=(python3 python3-venv postgresql redis-server caddy rsync curl)
UNITS=(bourre-web.socket bourre-web.service bourre-worker.service
  bourre-check-books.service bourre-check-books.timer
  bourre-backup.service bourre-backup.timer
  bourre-tab-reminders.service bourre-tab-reminders.timer)

DOMAIN="${BOURRE_DOMAIN:-}"
LAN_NAME="${BOURRE_LAN_NAME:-}"
EMAIL="${BOURRE_EMAIL:-}"
KEEP="${BOURRE_KEEP:-14}"
DRY_RUN=0
ASSUME_YES=0
PRINT=""
SYSTEMD=1

usage() {
  sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

die() {
  echo "install.sh: $*" >&2
  exit 1
}

while (($#)); do
  case "$1" in
    --domain) DOMAIN="${2:?--domain needs a name}"; shift 2 ;;
    --lan) LAN_NAME="${2:?--lan needs a name}"; shift 2 ;;
    --email) EMAIL="${2:?--email needs an address}"; shift 2 ;;
    --keep) KEEP="${2:?--keep needs a number}"; shift 2 ;;
    --dry-run) DRY_RUN=1; shift ;;
    --yes | -y) ASSUME_YES=1; shift ;;
    --no-systemd) SYSTEMD=0; shift ;;
    --print) PRINT="${2:?--print needs caddyfile or a unit name}"; shift 2 ;;
    --help | -h) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

[[ "$KEEP" =~ ^[1-9][0-9]*$ ]] || die "--keep takes a whole number of backups, at least 1"

# -- doing, or saying what would be done ----------------------------------------------------

STEP=0
step() {
  STEP=$((STEP + 1))
  echo
  echo "== $STEP. $*"
}

# Runs a command, or prints it in a dry run.
run() {
  echo "+ $*"
  if ((DRY_RUN == 0)); then
    "$@"
  fi
}

# Writes stdin to a file with a mode and an owner, or says it would.
write_file() {
  local path="$1" mode="$2" owner="$3" content
  content="$(cat)"
  if ((DRY_RUN)); then
    echo "+ write $path (mode $mode, owner $owner, $(printf '%s\n' "$content" | wc -l) lines)"
    return
  fi
  echo "+ write $path"
  install -d "$(dirname "$path")"
  local tmp
  tmp="$(mktemp "$path.XXXXXX")"
  printf '%s\n' "$content" >"$tmp"
  chmod "$mode" "$tmp"
  chown "$owner" "$tmp"
  mv -f "$tmp" "$path"
}

# -- the site's names ----------------------------------------------------------------------

lan_addresses() {
  # The machine's addresses on the home network (phones without mDNS can use them).
  hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^(10|172\.(1[6-9]|2[0-9]|3[01])|192\.168)\.' || true
}

# SITE_NAMES: every name Caddy serves and Django accepts, the first one the main one.
site_names() {
  if [[ -n "$DOMAIN" ]]; then
    echo "$DOMAIN"
  else
    echo "$LAN_NAME"
    lan_addresses
  fi
}

# -- rendering the templates ---------------------------------------------------------------

# The @FIELD@s of deploy/Caddyfile and deploy/systemd/*.
render() {
  local text
  text="$(cat "$1")"
  text="${text//@USER@/$USER_NAME}"
  text="${text//@APP_DIR@/$APP_DIR}"
  text="${text//@VENV_DIR@/$VENV_DIR}"
  text="${text//@ENV_FILE@/$ENV_FILE}"
  text="${text//@BACKUP_DIR@/$BACKUP_DIR}"
  text="${text//@STATE_DIR@/$STATE_DIR}"
  text="${text//@KEEP@/$KEEP}"
  text="${text//@PORT@/$PORT}"
  printf '%s\n' "$text"
}

render_caddyfile() {
  local names address="" http_site="" tls global="" name
  mapfile -t names < <(site_names)
  for name in "${names[@]}"; do
    address+="${address:+, }$name"
  done
  if [[ -n "$DOMAIN" ]]; then
    tls="# A public name: Caddy gets and renews a Let's Encrypt certificate."
    [[ -z "$EMAIL" ]] || global=$'{\n\temail '"$EMAIL"$'\n}'
  else
    tls="tls internal"
    # Plain http on the home network only hands out the root certificate of Caddy's
    # authority (phones install it once), and sends everything else to https.
    local http_address=""
    for name in "${names[@]}"; do
      http_address+="${http_address:+, }http://$name"
    done
    http_site="$http_address {
	handle /ca.crt {
		root * $CADDY_PKI
		rewrite * /root.crt
		header Content-Type application/x-x509-ca-cert
		file_server
	}
	handle {
		redir https://{host}{uri} 308
	}
}"
  fi
  local text
  text="$(render "$DEPLOY_DIR/Caddyfile")"
  text="${text//@GLOBAL_OPTIONS@/$global}"
  text="${text//@HTTP_SITE@/$http_site}"
  text="${text//@SITE_ADDRESS@/$address}"
  text="${text//@TLS@/$tls}"
  text="${text//@STATIC_ROOT@/$APP_DIR/staticfiles}"
  text="${text//@UPSTREAM@/127.0.0.1:$PORT}"
  # One blank line where an empty field left several (caddy fmt's layout).
  printf '%s\n' "$text" | cat -s
}

# The lines of /etc/bourre/env the script manages (any other line there is kept).
managed_env() {
  local allowed
  allowed="$(site_names | paste -sd,)"
  printf '%s\n' \
    "DJANGO_SECRET_KEY=$1" \
    "DJANGO_ALLOWED_HOSTS=$allowed" \
    "DATABASE_URL=postgres:///$DB_NAME" \
    "REDIS_URL=redis://127.0.0.1:6379/0" \
    "DJANGO_SECURE_SSL_REDIRECT=1" \
    "DJANGO_SECURE_PROXY_SSL_HEADER=1" \
    "DJANGO_STATIC_MANIFEST=1" \
    "DJANGO_TRUSTED_PROXIES=127.0.0.1/32,::1/128" \
    "BOURRE_BOOKS_CHECK_FILE=$STATE_DIR/check_books.json" \
    "BOURRE_SITE_URL=https://$(site_names | head -n 1)"
}

if [[ -n "$PRINT" ]]; then
  if [[ "$PRINT" == caddyfile || "$PRINT" == env ]]; then
    [[ -n "$DOMAIN$LAN_NAME" ]] || die "--print $PRINT needs --domain NAME or --lan NAME"
    if [[ "$PRINT" == env ]]; then
      managed_env "(generated-at-install)"
    else
      render_caddyfile
    fi
  elif [[ -f "$DEPLOY_DIR/systemd/$PRINT" ]]; then
    render "$DEPLOY_DIR/systemd/$PRINT"
  else
    die "nothing to print called $PRINT (caddyfile, env, or one of: ${UNITS[*]})"
  fi
  exit 0
fi

# -- what kind of run ------------------------------------------------------------------------

UPGRADE=0
if [[ -f "$ENV_FILE" ]]; then
  UPGRADE=1
  if [[ -z "$DOMAIN$LAN_NAME" && -f "$CONF_FILE" ]]; then
    # The name given the first time.
    DOMAIN="$(sed -n 's/^DOMAIN=//p' "$CONF_FILE")"
    LAN_NAME="$(sed -n 's/^LAN_NAME=//p' "$CONF_FILE")"
  fi
fi

if [[ -z "$DOMAIN$LAN_NAME" ]]; then
  if ((ASSUME_YES)) || [[ ! -t 0 ]]; then
    die "say where the club will open it: --domain NAME (a public name pointing at this machine) or --lan NAME (e.g. bourre.local)"
  fi
  echo "Where will the club open it?"
  echo "  A public domain name that points at this machine (ports 80 and 443 open), e.g."
  echo "  bourre.example.com: Caddy gets a free Let's Encrypt certificate."
  echo "  Or leave it blank for the home network only."
  read -r -p "Public domain name (blank for the home network): " DOMAIN
  if [[ -z "$DOMAIN" ]]; then
    default_lan="$(hostname).local"
    read -r -p "Name on the home network [$default_lan]: " LAN_NAME
    LAN_NAME="${LAN_NAME:-$default_lan}"
  else
    read -r -p "E-mail for Let's Encrypt's notices (optional): " EMAIL
  fi
fi
[[ -z "$DOMAIN" || -z "$LAN_NAME" ]] || die "give --domain or --lan, not both"
for name in "$DOMAIN" "$LAN_NAME"; do
  [[ -z "$name" || "$name" =~ ^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$ ]] ||
    die "$name is not a host name (letters, digits, dots and dashes)"
done

if ((DRY_RUN == 0)) && ((EUID != 0)); then
  die "run it as root (sudo $0 ...), or add --dry-run to see what it would do"
fi
if [[ -r /etc/os-release ]]; then
  # shellcheck disable=SC1091
  . /etc/os-release
  case "${ID:-}" in
    debian | ubuntu | raspbian) ;;
    *) echo "Note: made for Debian 12, Ubuntu 24.04 and Raspberry Pi OS; this is ${PRETTY_NAME:-unknown}." ;;
  esac
fi

mapfile -t NAMES < <(site_names)
if ((UPGRADE)); then
  echo "Upgrading the club server for ${NAMES[0]} (a backup comes first)."
else
  echo "Installing the club server for ${NAMES[0]}."
fi
((DRY_RUN)) && echo "Dry run: nothing is changed; each step prints what it would do."
# sd_booted(3)'s test. A dry run shows the systemd steps unless told --no-systemd.
if ((DRY_RUN == 0 && SYSTEMD)) && [[ ! -d /run/systemd/system ]]; then
  SYSTEMD=0
fi
((SYSTEMD)) || echo "No systemd here (a chroot or a container): the services are started from init scripts or by hand."

# Without systemd: the commands that start what the units would, as the units do (the
# ExecStart lines of the rendered units, as their user with their settings). gunicorn
# binds the port itself, as no bourre-web.socket hands it one.
by_hand() {
  local unit exec_start
  echo
  echo "No systemd: start these by hand (as root; each runs in the foreground, hence the &)"
  if ((UPGRADE)); then
    echo "after stopping the web app and worker started last time (the new code needs new processes):"
  else
    echo "to serve https://${NAMES[0]}/:"
  fi
  for unit in bourre-web.service bourre-worker.service; do
    exec_start="$(render "$DEPLOY_DIR/systemd/$unit" | sed -n 's/^ExecStart=//p')"
    [[ "$unit" != bourre-web.service ]] || exec_start+=" --bind 127.0.0.1:$PORT"
    echo "  sh -c 'set -a; . $ENV_FILE; set +a; cd $APP_DIR; exec runuser -u $USER_NAME -- $exec_start' &"
  done
  if ((UPGRADE)); then
    # A running Caddy takes the new Caddyfile through its admin endpoint, without a gap.
    echo "  caddy reload --config $CADDYFILE   # or, if Caddy is not running:"
  fi
  # Debian's caddy.service: the caddy user, its home for the certificates, and the right
  # to bind ports 80 and 443.
  echo "  setpriv --reuid=caddy --regid=caddy --init-groups --inh-caps=+net_bind_service \\"
  echo "    --ambient-caps=+net_bind_service env HOME=/var/lib/caddy caddy run --config $CADDYFILE &"
  echo "Then: curl --cacert $CADDY_PKI/root.crt --resolve ${NAMES[0]}:443:127.0.0.1 https://${NAMES[0]}/healthz"
}

# -- the steps -----------------------------------------------------------------------------

# A distribution's service (PostgreSQL, Redis): enabled and started by systemd, or
# started from its Debian init script where no systemd runs.
start_service() {
  if ((SYSTEMD)); then
    run systemctl enable --now "$1"
  else
    run service "$1" start
  fi
}

db_exists() {
  command -v psql >/dev/null 2>&1 &&
    runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_database WHERE datname='$DB_NAME'" 2>/dev/null | grep -q 1
}

if ((UPGRADE)); then
  step "Back up the database before anything changes"
  # PostgreSQL may be stopped (a reboot without systemd, a stopped service): start it,
  # or a stopped server would look like "no database" and the upgrade would go unsaved.
  if ((DRY_RUN)) || command -v psql >/dev/null 2>&1; then
    start_service postgresql
  fi
  if ((DRY_RUN == 0)) && ! db_exists; then
    echo "(no database yet, after an install that stopped early: nothing to back up)"
  else
    run install -d -o "$USER_NAME" -g "$USER_NAME" -m 0700 "$BACKUP_DIR"
    run "$MANAGE_BIN" backup --dir "$BACKUP_DIR" --keep "$KEEP"
  fi
fi

step "Install the packages: ${PACKAGES[*]}"
run apt-get update -q
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${PACKAGES[@]}"

step "Create the system user $USER_NAME"
if id "$USER_NAME" >/dev/null 2>&1; then
  echo "(already there)"
else
  run useradd --system --user-group --home-dir "$HOME_DIR" --shell /usr/sbin/nologin "$USER_NAME"
fi
run install -d -o root -g root -m 0755 "$HOME_DIR" "$APP_DIR"
run install -d -o "$USER_NAME" -g "$USER_NAME" -m 0700 "$BACKUP_DIR"
run install -d -o "$USER_NAME" -g "$USER_NAME" -m 0755 "$STATE_DIR"

step "Copy this release to $APP_DIR (owned by root: the app only reads its code)"
if [[ "$SRC_DIR" != "$APP_DIR" ]]; then
  run rsync -a --delete --chown=root:root \
    --exclude=.git/ --exclude=.venv/ --exclude=staticfiles/ --exclude=backups/ \
    --exclude='db.sqlite3*' --exclude=.secret_key --exclude=__pycache__/ \
    --exclude='*.mo' --exclude=node_modules/ --exclude=.pytest_cache/ \
    "$SRC_DIR/" "$APP_DIR/"
fi

step "The virtualenv $VENV_DIR and the dependencies"
if [[ ! -x "$VENV_DIR/bin/python" ]]; then
  run python3 -m venv "$VENV_DIR"
fi
run "$VENV_DIR/bin/python" -m pip install -q --upgrade pip
run "$VENV_DIR/bin/python" -m pip install -q "$APP_DIR"

step "The settings: $ENV_FILE (mode 0600, read by systemd as root)"
SECRET=""
if [[ -f "$ENV_FILE" ]]; then
  SECRET="$(sed -n 's/^DJANGO_SECRET_KEY=//p' "$ENV_FILE" | tail -n 1)"
fi
if [[ -z "$SECRET" ]]; then
  echo "(a new secret key)"
  SECRET="$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')"
else
  echo "(the secret key is kept: sessions and API tokens stay valid)"
fi
mapfile -t MANAGED < <(managed_env "$SECRET")
managed_keys="$(printf '%s\n' "${MANAGED[@]}" | cut -d= -f1 | paste -sd'|')"
{
  echo "# The club server's settings (README \"Configuration\"). deploy/install.sh rewrites"
  echo "# the lines it manages and keeps any other line added below them."
  printf '%s\n' "${MANAGED[@]}"
  if [[ -f "$ENV_FILE" ]]; then
    grep -v -E "^(($managed_keys)=|# The club server's settings|# the lines it manages)" "$ENV_FILE" || true
  fi
} | write_file "$ENV_FILE" 0600 root:root
printf 'DOMAIN=%s\nLAN_NAME=%s\n' "$DOMAIN" "$LAN_NAME" | write_file "$CONF_FILE" 0644 root:root
write_file "$MANAGE_BIN" 0755 root:root <<EOF
#!/bin/sh
# manage.py of the club server, as the $USER_NAME user with its settings:
#   sudo bourre-manage check_books    sudo bourre-manage backup --dir $BACKUP_DIR
set -eu
set -a
. $ENV_FILE
set +a
cd $APP_DIR
exec runuser -u $USER_NAME -- $VENV_DIR/bin/python manage.py "\$@"
EOF

step "PostgreSQL: the role $USER_NAME and the database $DB_NAME (peer authentication)"
start_service postgresql
if ((DRY_RUN)) || ! runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_roles WHERE rolname='$USER_NAME'" | grep -q 1; then
  run runuser -u postgres -- createuser "$USER_NAME"
fi
if ((DRY_RUN)) || ! db_exists; then
  run runuser -u postgres -- createdb --owner "$USER_NAME" "$DB_NAME"
fi
start_service redis-server

# Before the first manage.py run as the service's user: the catalogues compiled at
# startup otherwise, which that user cannot write (seen in the Debian chroot run: six
# "Permission denied" warnings from migrate).
step "Static files, translations and bytecode (as root: the service cannot write its code)"
run env -C "$APP_DIR" "$VENV_DIR/bin/python" -c \
  'from pathlib import Path; from bourre_site.i18n import compile_catalogues as c; c(Path("locale"), Path("bourre_site/locale_django"))'
run env -C "$APP_DIR" DJANGO_STATIC_MANIFEST=1 DJANGO_SECRET_KEY=collectstatic-only \
  "$VENV_DIR/bin/python" manage.py collectstatic --noinput -v 0
run "$VENV_DIR/bin/python" -m compileall -q "$APP_DIR"

step "Migrate the database"
run "$MANAGE_BIN" migrate --noinput
run "$MANAGE_BIN" check --deploy --fail-level WARNING

step "The systemd units: web (socket and gunicorn), webhook worker, nightly backup and check_books, tab reminders"
for unit in "${UNITS[@]}"; do
  render "$DEPLOY_DIR/systemd/$unit" | write_file "$UNIT_DIR/$unit" 0644 root:root
done
if ((SYSTEMD)); then
  run systemctl daemon-reload
  run systemctl enable --now bourre-web.socket bourre-web.service bourre-worker.service \
    bourre-backup.timer bourre-check-books.timer bourre-tab-reminders.timer
  if ((UPGRADE)); then
    run systemctl restart bourre-web.service bourre-worker.service
  fi
else
  echo "(no systemd: written, not enabled; the nightly backup, check_books and tab reminders do not run)"
fi

step "Caddy: https for ${NAMES[*]}"
if [[ -f "$CADDYFILE" ]] && ! grep -q "Bourré club server" "$CADDYFILE"; then
  run cp -a "$CADDYFILE" "$CADDYFILE.before-bourre"
fi
render_caddyfile | write_file "$CADDYFILE" 0644 root:root
run caddy validate --adapter caddyfile --config "$CADDYFILE"
if ((SYSTEMD == 0)); then
  by_hand
  exit 0
fi
run systemctl enable caddy
run systemctl reload-or-restart caddy

step "Is it up?"
run curl --fail --silent --show-error --retry 10 --retry-delay 1 --retry-connrefused \
  --output /dev/null "http://127.0.0.1:$PORT/healthz"
# Through Caddy, as a phone comes: a LAN name's certificate is checked against Caddy's
# own authority; a public name's certificate may take Let's Encrypt a minute.
CA_ARGS=()
[[ -n "$DOMAIN" ]] || CA_ARGS=(--cacert "$CADDY_PKI/root.crt")
if ! run curl --fail --silent --show-error --retry 30 --retry-delay 2 --retry-all-errors \
  "${CA_ARGS[@]}" --resolve "${NAMES[0]}:443:127.0.0.1" --output /dev/null \
  "https://${NAMES[0]}/healthz"; then
  echo "The app answers, but not yet through https://${NAMES[0]}/: see"
  echo "journalctl -u caddy (a public name needs its DNS pointing here and ports 80 and 443 open)."
fi
echo
echo "The club's books are at https://${NAMES[0]}/"
if [[ -z "$DOMAIN" ]]; then
  echo "Each phone first installs this server's certificate, once: open"
  echo "http://${NAMES[0]}/ca.crt and follow README \"Put your club online\"."
  if ((DRY_RUN == 0)) && [[ -f "$CADDY_PKI/root.crt" ]]; then
    echo "Its fingerprint (compare it on the phone):"
    openssl x509 -noout -fingerprint -sha256 -in "$CADDY_PKI/root.crt" || true
  fi
fi
echo "Sign up there; then sudo bourre-manage createsuperuser makes an admin if you want one."
