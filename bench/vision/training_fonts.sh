#!/bin/sh
# The fonts the bonus-tile reader trains on beyond the project's own set-up: Debian packages
# unpacked under build/ (nothing installed system-wide) and a fontconfig file that adds them,
# which bench/vision/bonus_data.py points every rendering at when it exists. The last line's
# packages are Latin faces (sans, serif, geometric) for the English names sets print.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
debs="$root/build/fonts-debs"
mkdir -p "$debs" "$root/build/fonts"
cd "$debs"
apt-get download \
    fonts-cns11643-kai fonts-cns11643-sung fonts-babelstone-han fonts-lxgw-wenkai \
    fonts-wqy-microhei fonts-vlgothic fonts-ipaexfont-gothic fonts-horai-umefont \
    fonts-sawarabi-gothic fonts-sawarabi-mincho fonts-motoya-l-cedar fonts-motoya-l-maruberi \
    fonts-mplus fonts-misaki fonts-klee fonts-kouzan-mouhitsu fonts-aoyagi-kouzan-t \
    fonts-aoyagi-soseki fonts-seto \
    fonts-liberation fonts-urw-base35 fonts-freefont-ttf fonts-cantarell fonts-open-sans \
    fonts-lato fonts-roboto-unhinted
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$root/build/fonts-root"; done
cat > "$root/build/fonts/fonts.conf" <<CONF
<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>$root/build/fonts-root/usr/share/fonts</dir>
  <cachedir>$root/build/fonts/cache</cachedir>
</fontconfig>
CONF
FONTCONFIG_FILE="$root/build/fonts/fonts.conf" fc-cache "$root/build/fonts-root" >/dev/null
echo "training fonts under $root/build/fonts-root; fontconfig file $root/build/fonts/fonts.conf"
