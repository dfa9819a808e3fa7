#!/usr/bin/env bash
# The README's two commands on a truly fresh machine: a minimal Debian 12 root file system
# (debootstrap --variant=minbase bookworm), a clean clone of this repository copied in, and
# `./dev simulate` then `./dev test` run in it as its root user, after bare `./dev` and
# `./dev test` as a user without root or sudo (which must say what to run as root).
#
#   sudo bench/fresh_debian/run.sh [--keep] [--root DIR] [--mirror URL] [--json FILE]
#                                  [--ca-bundle FILE]
#
# --ca-bundle: where HTTPS goes through a proxy with its own certificate authority, the host's
# bundle (default: the host's $PIP_CERT, if set) is handed to pip in the root as PIP_CERT;
# a fresh Debian's pip trusts only its own bundle.
# Needs root on a Debian machine (debootstrap, chroot, mounts) and the network (Debian and
# PyPI). Records the time of each step and the size of the set-up in
# bench/fresh_debian/results.json (or --json FILE), and prints it. Not part of the test suite.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROOTFS=/var/tmp/mjtable-fresh-debian
MIRROR=http://deb.debian.org/debian
JSON=$HERE/results.json
KEEP=0
CA_BUNDLE=${PIP_CERT:-}
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) KEEP=1 ;;
        --root) ROOTFS=$2; shift ;;
        --mirror) MIRROR=$2; shift ;;
        --json) JSON=$2; shift ;;
        --ca-bundle) CA_BUNDLE=$2; shift ;;
        *) echo "usage: $0 [--keep] [--root DIR] [--mirror URL] [--json FILE] [--ca-bundle FILE]" >&2
           exit 64 ;;
    esac
    shift
done
if [ "$(id -u)" -ne 0 ]; then
    echo "$0: needs root (debootstrap, chroot and mounts): run it as root or with sudo" >&2
    exit 1
fi
LOGDIR=$ROOTFS.logs
CLONE=/home/player/mahjong-table

step() { echo "== $(date -u +%H:%M:%S) $*" >&2; }
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
mib() { du -sxm "$1" 2>/dev/null | cut -f1; }

MOUNTED=()
unmount_all() {
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        umount -l "${MOUNTED[$i]}" 2>/dev/null || true
    done
    MOUNTED=()
}
cleanup() {
    unmount_all
    if grep -q " $ROOTFS/" /proc/mounts; then
        echo "$0: something is still mounted under $ROOTFS: left in place" >&2
    elif [ "$KEEP" -eq 0 ] && [ -d "$ROOTFS" ]; then
        rm -rf --one-file-system "$ROOTFS"
    fi
}
trap cleanup EXIT

step "debootstrap from Debian (the host's apt)"
if ! command -v debootstrap >/dev/null; then
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap \
        >/dev/null
fi

step "a minimal Debian 12 root in $ROOTFS"
rm -rf --one-file-system "$ROOTFS" "$LOGDIR"
mkdir -p "$ROOTFS" "$LOGDIR"
t0=$(now)
debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$LOGDIR/debootstrap.log" 2>&1
t_debootstrap=$(seconds "$t0" "$(now)")
base_mib=$(mib "$ROOTFS")
base_packages=$(chroot "$ROOTFS" dpkg-query -W -f='.\n' | wc -l)
# As in a container: packages may not start services in a chroot (Mosquitto would take the
# host's port 1883). The tests start their own broker on a free port.
printf '#!/bin/sh\nexit 101\n' >"$ROOTFS/usr/sbin/policy-rc.d"
chmod +x "$ROOTFS/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
# A Debian install writes /etc/hosts; debootstrap does not, and without it `localhost` does not
# resolve (the page tests' chromedriver is reached at localhost).
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOTFS/etc/hosts"
pip_cert=()
if [ -n "$CA_BUNDLE" ]; then
    cp "$CA_BUNDLE" "$ROOTFS/etc/bench-ca-bundle.pem"
    pip_cert=(PIP_CERT=/etc/bench-ca-bundle.pem)
fi
chroot "$ROOTFS" useradd --create-home --shell /bin/bash player

commit=$(git -C "$REPO" rev-parse HEAD)
step "a clean clone of ${commit:0:7} copied in"
git clone -q --no-hardlinks "$REPO" "$ROOTFS$CLONE"
chroot "$ROOTFS" chown -R player:player "$CLONE"

for fs in proc sys dev dev/pts; do
    mount --bind "/$fs" "$ROOTFS/$fs"
    MOUNTED+=("$ROOTFS/$fs")
done
# No tmpfs at /dev/shm is needed: it comes with the bind of /dev.

in_root() {  # USER COMMAND...: run in the fresh root, from the clone
    local user=$1 home=/root
    shift
    [ "$user" = root ] || home=/home/$user
    chroot "$ROOTFS" /usr/sbin/runuser -u "$user" -- env -i HOME="$home" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        TERM=dumb "${pip_cert[@]}" bash -c "cd $CLONE && $*"
}

step "as a user without root or sudo: bare ./dev, then ./dev test"
in_root player ./dev >"$LOGDIR/bare-dev.log" 2>&1 && bare_rc=0 || bare_rc=$?
in_root player ./dev test >"$LOGDIR/user-test.log" 2>&1 && user_rc=0 || user_rc=$?

step "as root: ./dev simulate (sets everything up first)"
t0=$(now)
in_root root ./dev simulate >"$LOGDIR/simulate.log" 2>&1 && sim_rc=0 || sim_rc=$?
t_simulate=$(seconds "$t0" "$(now)")
setup_mib=$(($(mib "$ROOTFS") - base_mib))
venv_mib=$(mib "$ROOTFS$CLONE/.venv")
fonts_mib=$(mib "$ROOTFS/usr/share/fonts")
apt_cache_mib=$(mib "$ROOTFS/var/cache/apt")
apt_lists_mib=$(mib "$ROOTFS/var/lib/apt/lists")
pip_cache_mib=$(mib "$ROOTFS/root/.cache/pip")
packages=$(chroot "$ROOTFS" dpkg-query -W -f='.\n' | wc -l)

step "as root: ./dev test"
t0=$(now)
in_root root ./dev test >"$LOGDIR/test.log" 2>&1 && test_rc=0 || test_rc=$?
t_test=$(seconds "$t0" "$(now)")

step "as root: ./dev simulate again (nothing left to install)"
t0=$(now)
in_root root ./dev simulate --headless --hands 1 >"$LOGDIR/simulate-again.log" 2>&1 \
    && again_rc=0 || again_rc=$?
t_again=$(seconds "$t0" "$(now)")
unmount_all

summary=$(grep -E '[0-9]+ (passed|failed)' "$LOGDIR/test.log" | tail -n 1 || true)
python3 - "$JSON" <<EOF
import json, sys
lines = lambda name: open("$LOGDIR/" + name, errors="replace").read().splitlines()
result = {
    "commit": "$commit",
    "ca_bundle_for_pip": "$CA_BUNDLE",
    "date": "$(date -u +%Y-%m-%dT%H:%MZ)",
    "host": {"cores": $(nproc), "load_average_at_end": "$(cut -d' ' -f1-3 /proc/loadavg)"},
    "debootstrap_minbase": {"seconds": $t_debootstrap, "mib": $base_mib,
                            "debian_packages": $base_packages},
    "bare_dev_as_user": {"exit": $bare_rc, "output": lines("bare-dev.log")},
    "dev_test_as_user_without_sudo": {"exit": $user_rc, "output": lines("user-test.log")},
    "dev_simulate_first": {"exit": $sim_rc, "seconds": $t_simulate,
                           "set_up_output": [l for l in lines("simulate.log") if l.startswith("dev:")],
                           "last_lines": lines("simulate.log")[-8:]},
    "set_up_size": {"mib": $setup_mib, "venv_mib": $venv_mib, "fonts_mib": $fonts_mib,
                    "apt_cache_mib": $apt_cache_mib, "apt_lists_mib": $apt_lists_mib,
                    "pip_cache_mib": ${pip_cache_mib:-0},
                    "debian_packages_added": $packages - $base_packages},
    "dev_test": {"exit": $test_rc, "seconds": $t_test, "summary": "$summary",
                 "set_up_output": [l for l in lines("test.log") if l.startswith("dev:")]},
    "dev_simulate_again_headless_1_hand": {"exit": $again_rc, "seconds": $t_again},
}
json.dump(result, open(sys.argv[1], "w"), indent=2)
print(json.dumps(result, indent=2))
EOF
echo "logs: $LOGDIR" >&2
[ "$sim_rc" -eq 0 ] && [ "$test_rc" -eq 0 ] && [ "$again_rc" -eq 0 ] && [ "$user_rc" -ne 0 ]
