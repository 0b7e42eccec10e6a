#!/usr/bin/env bash
# Installs what SharedDeviceLab needs on Debian, only where it is missing: libdbus (headers
# for the CDBus module), the real dbus-daemon, the D-Bus command-line tools the tests drive
# (dbus-send, dbus-monitor, gdbus), python3-dbus with python3-gi for foreign-client tests, and
# libsqlite3-dev for the SQLite3 module, zlib1g-dev, libbz2-dev, liblzma-dev and libzstd-dev for the
# leak scanner, libarchive-dev (tar and every zip method) and libgmime-3.0-dev (MIME mail) for it too
# (sqlite3 for its tests).
# With --with-browser also Chromium, which the report test renders report.html in (without it
# that test is skipped).
set -euo pipefail
packages=(libdbus-1-dev dbus-daemon dbus-bin libglib2.0-bin python3-dbus python3-gi pkg-config libsqlite3-dev zlib1g-dev libbz2-dev liblzma-dev libzstd-dev libarchive-dev libgmime-3.0-dev sqlite3)
[ "${1:-}" = "--with-browser" ] && packages+=(chromium)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
