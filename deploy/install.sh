#!/usr/bin/env bash
# Install the table service on Raspberry Pi OS (Bookworm), as root, from a clone of the repo:
#
#   sudo deploy/install.sh TABLE_ID
#   sudo ORGANISER=1 deploy/install.sh TABLE_ID     (also a club-wide organiser account)
#   sudo CLUB=club-hub.local:8883 CLUB_PASSWORD_FILE=FILE CLUB_CA=FILE deploy/install.sh TABLE_ID
#                                  (also bridges the table to its club's broker: docs/club.md)
#
# Idempotent: run it again after `git pull` to upgrade. It
#   - installs the Debian packages (Mosquitto, picamera2/libcamera, lgpio),
#   - creates the user `mahjong` in the gpio, dialout and video groups,
#   - builds /opt/mahjong-table/venv WITH system site packages (picamera2 and libcamera come
#     only from Raspberry Pi OS apt) and installs this checkout into it,
#   - writes /etc/mahjong-table/table.toml (only if absent), the MQTT accounts and ACL, and
#     the table's CA and TLS certificate (deploy/make-certs.sh, deploy/mqtt-accounts.sh),
#   - installs the udev rule, the Mosquitto config and the systemd unit, and starts both.
set -euo pipefail

TABLE_ID=${1:-}
if [ -z "$TABLE_ID" ] || ! [[ "$TABLE_ID" =~ ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$ ]]; then
    echo "usage: $0 TABLE_ID   (1-64 letters, digits, - or _; e.g. table-07)" >&2
    exit 64
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "$0: run as root (sudo)" >&2
    exit 1
fi

SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=/opt/mahjong-table
ETC=/etc/mahjong-table

echo "== Debian packages"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    python3 python3-venv python3-pip mosquitto mosquitto-clients \
    python3-picamera2 python3-libcamera python3-lgpio

echo "== user mahjong"
id mahjong >/dev/null 2>&1 || useradd --system --home-dir /var/lib/mahjong-table \
    --shell /usr/sbin/nologin mahjong
for group in gpio dialout video; do
    getent group "$group" >/dev/null && usermod -a -G "$group" mahjong
done

echo "== virtualenv in $PREFIX/venv"
mkdir -p "$PREFIX"
rm -rf "$PREFIX/src" && cp -a "$SRC" "$PREFIX/src" && rm -rf "$PREFIX/src/.venv"
[ -x "$PREFIX/venv/bin/python" ] || python3 -m venv --system-site-packages "$PREFIX/venv"
"$PREFIX/venv/bin/pip" install -q --upgrade pip
"$PREFIX/venv/bin/pip" install -q "$PREFIX/src"

echo "== configuration in $ETC"
install -d -m 0750 -o root -g mahjong "$ETC"
if [ ! -f "$ETC/table.toml" ]; then
    sed -e "s/^id = \"table-01\"/id = \"$TABLE_ID\"/" \
        -e "s/^username = \"table-01\"/username = \"$TABLE_ID\"/" \
        "$SRC/config/defaults/table.toml" > "$ETC/table.toml"
    chgrp mahjong "$ETC/table.toml" && chmod 0640 "$ETC/table.toml"
fi

echo "== Mosquitto: TLS on the LAN, accounts, ACL, persistence"
# The table's CA and the broker's certificate (also the table page's): docs/security.md.
CERTS=/etc/mosquitto/mahjong-table
"$SRC/deploy/make-certs.sh" "$CERTS" "$(hostname)" $(hostname -I 2>/dev/null || true)
chgrp mosquitto "$CERTS/server.key"
# The same certificate for the table's web page, readable by the service's group.
install -d -m 0750 -o root -g mahjong "$ETC/tls"
install -m 0644 "$CERTS/ca.crt" "$CERTS/server.crt" "$ETC/tls/"
install -m 0640 -o root -g mahjong "$CERTS/server.key" "$ETC/tls/server.key"
# Accounts: the table, referee-$TABLE_ID, viewer (and a club-wide organiser with
# ORGANISER=1). Passwords go to root-only files, never onto a command line or the screen.
SECRETS=$ETC/mqtt-accounts
PASSWD=/etc/mosquitto/mahjong-table.passwd
"$SRC/deploy/mqtt-accounts.sh" "$SECRETS" "$PASSWD" "$TABLE_ID" \
    ${ORGANISER:+--organiser}
chgrp mosquitto "$PASSWD" && chmod 0640 "$PASSWD"
install -m 0640 -o root -g mahjong "$SECRETS/$TABLE_ID.password" "$ETC/mqtt-password"
{
    sed "s/TABLE_ID/$TABLE_ID/g" "$SRC/deploy/mosquitto/mahjong-table.acl"
    [ -z "${ORGANISER:-}" ] || cat "$SRC/deploy/mosquitto/organiser.acl"
} > /etc/mosquitto/mahjong-table.acl
chgrp mosquitto /etc/mosquitto/mahjong-table.acl && chmod 0640 /etc/mosquitto/mahjong-table.acl
install -m 0644 "$SRC/deploy/mosquitto/mahjong-table.conf" /etc/mosquitto/conf.d/mahjong-table.conf
if [ -n "${CLUB:-}" ]; then
    # The bridge to the club broker (deploy/mosquitto/club-bridge.conf): the table's tree out,
    # the club role's commands in, queued on disk while the club network is down.
    CLUB_HOST=${CLUB%:*}
    CLUB_PORT=${CLUB##*:}
    if [ "$CLUB_HOST" = "$CLUB" ] || ! [[ "$CLUB_PORT" =~ ^[0-9]+$ ]]; then
        echo "$0: CLUB must be HOST:PORT (the club broker's TLS listener, e.g. club.local:8883)" >&2
        exit 64
    fi
    for need in CLUB_PASSWORD_FILE CLUB_CA; do
        if [ ! -r "${!need:-}" ]; then
            echo "$0: $need must name a readable file (deploy/club/install.sh made it)" >&2
            exit 64
        fi
    done
    install -m 0644 "$CLUB_CA" /etc/mosquitto/club-ca.crt
    umask 027
    {
        sed -e "s/TABLE_ID/$TABLE_ID/g" -e "s/CLUB_HOST/$CLUB_HOST/" -e "s/CLUB_PORT/$CLUB_PORT/" \
            "$SRC/deploy/mosquitto/club-bridge.conf"
        echo "remote_username $TABLE_ID"
        # the secret goes from its file into the config, never onto a command line
        printf 'remote_password '
        tr -d '\n' < "$CLUB_PASSWORD_FILE"
        echo
        echo "bridge_cafile /etc/mosquitto/club-ca.crt"
    } > /etc/mosquitto/conf.d/club-bridge.conf
    umask 022
    chgrp mosquitto /etc/mosquitto/conf.d/club-bridge.conf
    chmod 0640 /etc/mosquitto/conf.d/club-bridge.conf
    echo "   bridged to the club broker at $CLUB"
fi
systemctl enable --now mosquitto
systemctl restart mosquitto
echo "   the referee's password: sudo cat $SECRETS/referee-$TABLE_ID.password"
echo "   the CA to import on club machines: $CERTS/ca.crt"

echo "== udev rule and systemd unit"
install -m 0644 "$SRC/deploy/99-mahjong-mcu.rules" /etc/udev/rules.d/99-mahjong-mcu.rules
udevadm control --reload-rules && udevadm trigger --subsystem-match=tty
udevadm settle --timeout=5 || true
[ -e /dev/mahjong-mcu ] \
    || echo "   no /dev/mahjong-mcu yet: flash and plug in the board (docs/build/flashing.md)"
install -m 0644 "$SRC/deploy/mahjong-table.service" /etc/systemd/system/mahjong-table.service
systemctl daemon-reload

"$PREFIX/venv/bin/mjtable" config check "$ETC/table.toml"
systemctl enable --now mahjong-table
systemctl --no-pager status mahjong-table || true
echo "== done: mjtable status --config $ETC/table.toml"
