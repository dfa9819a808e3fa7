#!/usr/bin/env bash
# Broker logins made without a password on any command line or output; used by
# deploy/mqtt-accounts.sh (a table's broker) and deploy/club/club-accounts.sh (the club's).
#
#   deploy/mqtt-users.sh SECRETS_DIR PASSWD_FILE USER...
#
# Each password is drawn once from /dev/urandom into SECRETS_DIR/<user>.password (mode 0600);
# existing ones are kept. PASSWD_FILE gets their hashes: mosquitto_passwd -U hashes a private
# plain file in place, so no secret is ever an argument (visible in `ps`) or printed. The
# file's other users are kept; these are replaced.
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 SECRETS_DIR PASSWD_FILE USER..." >&2
    exit 64
fi
SECRETS=$1
PASSWD=$2
shift 2

umask 077
mkdir -p "$SECRETS"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

: > "$WORK/plain"
for user in "$@"; do
    secret_file="$SECRETS/$user.password"
    if [ ! -s "$secret_file" ]; then
        head -c 18 /dev/urandom | base64 | tr -d '/+=\n' > "$secret_file"
        echo "made a password for MQTT user $user: $secret_file"
    fi
    printf '%s:%s\n' "$user" "$(cat "$secret_file")" >> "$WORK/plain"
done
mosquitto_passwd -U "$WORK/plain"

touch "$PASSWD"
grep -v -F -f <(printf '%s:\n' "$@") "$PASSWD" > "$WORK/others" || true
cat "$WORK/others" "$WORK/plain" > "$WORK/passwd"
cat "$WORK/passwd" > "$PASSWD"
