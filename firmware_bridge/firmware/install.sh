#!/usr/bin/env bash
# Copy the table firmware onto a Pico that runs MicroPython (1.22 or later), with mpremote.
#   firmware_bridge/firmware/install.sh [PORT]      PORT defaults to mpremote's auto-detection
# mpremote comes with the project: from the checkout's .venv (./dev setup), the Pi's
# /opt/mahjong-table/venv (deploy/install.sh), or else the PATH.
# The shared protocol modules go to /lib/firmware_bridge/ with an empty __init__.py (the
# host package's __init__ is not for the board).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pkg=$(dirname "$here")
connect=()
[ $# -gt 0 ] && connect=(connect "$1")
mpremote=""
for candidate in "$pkg/../.venv/bin/mpremote" /opt/mahjong-table/venv/bin/mpremote \
                 "$(command -v mpremote || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then mpremote=$candidate; break; fi
done
if [ -z "$mpremote" ]; then
    echo "$0: mpremote not found: run ./dev setup in the checkout (it installs it in .venv)" >&2
    exit 1
fi
mp() { "$mpremote" "${connect[@]}" "$@"; }
mp mkdir :lib 2>/dev/null || true
mp mkdir :lib/firmware_bridge 2>/dev/null || true
empty=$(mktemp); trap 'rm -f "$empty"' EXIT
mp cp "$empty" :lib/firmware_bridge/__init__.py
mp cp "$pkg/wire.py" "$pkg/board.py" :lib/firmware_bridge/
mp cp "$here/table_pins.py" "$here/table_hw.py" "$here/table_firmware.py" :
mp cp "$here/main.py" :main.py
mp reset
echo "installed; the board starts the link at every power-up (hold GP22 low for the REPL)"
