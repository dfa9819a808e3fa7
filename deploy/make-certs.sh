#!/usr/bin/env bash
# The table's own certificate authority and the broker's (and the web page's) certificate.
#
#   deploy/make-certs.sh DIR NAME [ADDRESS...]
#
# DIR gets ca.key (0600: it signs, it never leaves the Pi), ca.crt (public: what a club imports
# on its machines to trust the table), server.key and server.crt (for the host NAME, NAME.local,
# localhost and every ADDRESS given, e.g. the Pi's LAN addresses). deploy/install.sh runs it.
#
# Idempotent: an existing CA is kept (clients that imported it keep trusting the table); the
# server certificate is issued again when it is missing, expires within 30 days, or does not
# name every NAME and ADDRESS asked for. No secret is passed on a command line or printed.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 DIR NAME [ADDRESS...]" >&2
    exit 64
fi
DIR=$1
NAME=$2
shift 2
CA_DAYS=3650
SERVER_DAYS=825

umask 077
mkdir -p "$DIR"

if [ ! -s "$DIR/ca.key" ] || [ ! -s "$DIR/ca.crt" ]; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$DIR/ca.key" 2>/dev/null
    openssl req -new -x509 -key "$DIR/ca.key" -out "$DIR/ca.crt" -days "$CA_DAYS" \
        -subj "/O=mahjong-table/CN=mahjong-table CA $NAME" \
        -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
        -addext "keyUsage=critical,keyCertSign,cRLSign"
    echo "made the table's CA: $DIR/ca.crt"
fi

SAN="DNS:$NAME,DNS:$NAME.local,DNS:localhost,IP:127.0.0.1,IP:::1"
for address in "$@"; do
    SAN="$SAN,IP:$address"
done

needs_new_server_cert() {
    [ -s "$DIR/server.key" ] && [ -s "$DIR/server.crt" ] || return 0
    openssl x509 -in "$DIR/server.crt" -noout -checkend $((30 * 86400)) >/dev/null || return 0
    # server.san holds the names the certificate was issued for.
    [ "$(cat "$DIR/server.san" 2>/dev/null)" != "$SAN" ]
}

if needs_new_server_cert; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$DIR/server.key" \
        2>/dev/null
    openssl req -new -key "$DIR/server.key" -subj "/O=mahjong-table/CN=$NAME" \
        -out "$DIR/server.csr"
    printf '%s\n' "basicConstraints=critical,CA:FALSE" \
        "keyUsage=critical,digitalSignature,keyEncipherment" \
        "extendedKeyUsage=serverAuth" "subjectAltName=$SAN" > "$DIR/server.ext"
    openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" \
        -CAcreateserial -days "$SERVER_DAYS" -extfile "$DIR/server.ext" \
        -out "$DIR/server.crt" 2>/dev/null
    rm -f "$DIR/server.csr" "$DIR/server.ext"
    echo "$SAN" > "$DIR/server.san"
    echo "issued $DIR/server.crt for $SAN"
fi
chmod 0755 "$DIR"
chmod 0644 "$DIR/ca.crt" "$DIR/server.crt" "$DIR/server.san"
chmod 0600 "$DIR/ca.key"
chmod 0640 "$DIR/server.key"  # install.sh gives it to group mosquitto
