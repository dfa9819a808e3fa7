#!/usr/bin/env bash
# The club's hub machine (Debian 12 or Raspberry Pi OS Bookworm), as root, from a clone:
#
#   sudo deploy/club/install.sh TABLE_ID...
#   sudo HUB_DB=postgresql+psycopg://hub@dbhost/club deploy/club/install.sh TABLE_ID...
#
# Idempotent: run it again with more tables to add them. It
#   - installs Mosquitto and builds /opt/mahjong-table/venv with this checkout,
#   - makes the club's CA and the broker's certificate (deploy/make-certs.sh), the accounts
#     (hub, viewer, one per table: club-accounts.sh) and the ACL (club.acl, club-table.acl),
#   - installs the club broker's config and `mjtable hub` under systemd (mahjong-hub.service),
#     and starts both.
# Each table then bridges to this broker: deploy/install.sh with CLUB=... (docs/club.md).
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 TABLE_ID...   (the club's tables, e.g. table-01 table-02)" >&2
    exit 64
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "$0: run as root (sudo)" >&2
    exit 1
fi

SRC=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=/opt/mahjong-table
ETC=/etc/mahjong-hub
HUB_DB=${HUB_DB:-/var/lib/mahjong-hub/club.db}

echo "== Debian packages"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    python3 python3-venv python3-pip mosquitto mosquitto-clients

echo "== user mahjong-hub"
id mahjong-hub >/dev/null 2>&1 || useradd --system --home-dir /var/lib/mahjong-hub \
    --shell /usr/sbin/nologin mahjong-hub

echo "== virtualenv in $PREFIX/venv"
mkdir -p "$PREFIX"
rm -rf "$PREFIX/src" && cp -a "$SRC" "$PREFIX/src" && rm -rf "$PREFIX/src/.venv"
[ -x "$PREFIX/venv/bin/python" ] || python3 -m venv "$PREFIX/venv"
"$PREFIX/venv/bin/pip" install -q --upgrade pip
"$PREFIX/venv/bin/pip" install -q "$PREFIX/src"

echo "== the club broker: TLS, accounts, ACL, persistence"
CERTS=/etc/mosquitto/club
"$SRC/deploy/make-certs.sh" "$CERTS" "$(hostname)" $(hostname -I 2>/dev/null || true)
chgrp mosquitto "$CERTS/server.key"
SECRETS=$ETC/mqtt-accounts
install -d -m 0750 -o root -g mahjong-hub "$ETC"
"$SRC/deploy/club/club-accounts.sh" "$SECRETS" /etc/mosquitto/club.passwd "$@"
chgrp mosquitto /etc/mosquitto/club.passwd && chmod 0640 /etc/mosquitto/club.passwd
{
    cat "$SRC/deploy/club/club.acl"
    for table in "$@"; do sed "s/TABLE_ID/$table/g" "$SRC/deploy/club/club-table.acl"; done
} > /etc/mosquitto/club.acl
chgrp mosquitto /etc/mosquitto/club.acl && chmod 0640 /etc/mosquitto/club.acl
install -m 0644 "$SRC/deploy/club/club.conf" /etc/mosquitto/conf.d/club.conf
systemctl enable --now mosquitto
systemctl restart mosquitto

echo "== the organiser's desk on the club page: the organiser's broker password, hashed"
# One password for the organiser: the broker login and the desk's sign-in (docs/club.md).
"$PREFIX/venv/bin/mjtable" web passwd "$ETC/organiser.scrypt" < "$SECRETS/organiser.password"
chgrp mahjong-hub "$ETC/organiser.scrypt" && chmod 0640 "$ETC/organiser.scrypt"

echo "== mjtable hub under systemd"
umask 077
{
    echo "MJTABLE_HUB_ID=hub"
    echo "MJTABLE_HUB_DB=$HUB_DB"
    echo "MJTABLE_HUB_WEB=${HUB_WEB:-0.0.0.0:8080}"  # the club page, for the club's LAN
    echo "MJTABLE_HUB_ORGANISER=$ETC/organiser.scrypt"  # the desk's sign-in
    echo "MJTABLE_HUB_USER=hub"
    printf 'MJTABLE_HUB_PASSWORD='
    tr -d '\n' < "$SECRETS/hub.password"
    echo
} > "$ETC/hub.env"
chmod 0600 "$ETC/hub.env"
umask 022
install -m 0644 "$SRC/deploy/club/mahjong-hub.service" /etc/systemd/system/mahjong-hub.service
systemctl daemon-reload
systemctl enable --now mahjong-hub
systemctl restart mahjong-hub
systemctl --no-pager status mahjong-hub || true

echo "== done. For each table, copy to it (root only) its password and the club's CA:"
for table in "$@"; do
    echo "   $SECRETS/$table.password  and  $CERTS/ca.crt"
done
echo "   then on the table: sudo CLUB=$(hostname).local:8883 CLUB_PASSWORD_FILE=... \\"
echo "       CLUB_CA=... deploy/install.sh TABLE_ID"
