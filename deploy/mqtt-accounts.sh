#!/usr/bin/env bash
# The broker's accounts for one table, made without a password on any command line or output.
#
#   deploy/mqtt-accounts.sh SECRETS_DIR PASSWD_FILE TABLE_ID [--organiser]
#
# Users: TABLE_ID (the table service), referee-TABLE_ID (this table's referee: may command this
# table only), viewer (reads every table), and with --organiser a club-wide `organiser` (may
# command every table on this broker). Each password is drawn once from /dev/urandom into
# SECRETS_DIR/<user>.password (mode 0600; deploy/install.sh then gives the table's own to group
# mahjong); existing ones are kept. PASSWD_FILE gets their hashes: mosquitto_passwd -U hashes a
# private plain file in place, so no secret is ever an argument (visible in `ps`) or printed
# (deploy/mqtt-users.sh does the drawing and hashing for this and the club broker).
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 SECRETS_DIR PASSWD_FILE TABLE_ID [--organiser]" >&2
    exit 64
fi
SECRETS=$1
PASSWD=$2
TABLE_ID=$3
USERS=("$TABLE_ID" "referee-$TABLE_ID" viewer)
if [ "${4:-}" = "--organiser" ]; then
    USERS+=(organiser)
fi

exec "$(dirname "$0")/mqtt-users.sh" "$SECRETS" "$PASSWD" "${USERS[@]}"
