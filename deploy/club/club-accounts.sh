#!/usr/bin/env bash
# The club broker's accounts, made without a password on any command line or output.
#
#   deploy/club/club-accounts.sh SECRETS_DIR PASSWD_FILE TABLE_ID...
#
# Users: hub (mjtable hub), organiser (the organiser's console: events and rounds through the
# hub), viewer (the club's screens), and one per table (its bridge logs in
# under the table's id). Each password is drawn once from /dev/urandom into
# SECRETS_DIR/<user>.password (mode 0600); existing ones are kept, so a table added later gets
# its own without changing the others'. PASSWD_FILE gets their hashes (mosquitto_passwd -U
# hashes a private plain file in place).
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 SECRETS_DIR PASSWD_FILE TABLE_ID..." >&2
    exit 64
fi
SECRETS=$1
PASSWD=$2
shift 2
for table in "$@"; do
    if ! [[ "$table" =~ ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$ ]] || [ "$table" = club ] \
            || [ "$table" = hub ] || [ "$table" = viewer ] || [ "$table" = organiser ]; then
        echo "$0: $table is not a table id (1-64 letters, digits, - or _; not club, hub," \
             "organiser or viewer)" >&2
        exit 64
    fi
done
USERS=(hub organiser viewer "$@")

exec "$(dirname "$0")/../mqtt-users.sh" "$SECRETS" "$PASSWD" "${USERS[@]}"
