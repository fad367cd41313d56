#!/usr/bin/env bash
# Fills a docker build context for scripts/docker/Dockerfile.offline: the lanchat
# binary, every shared library `ldd` lists (same paths as on this host), a
# passwd entry for uid 10001 and an empty /data it owns.
#
#   scripts/docker/stage-offline.sh BINARY DIR && docker build -t lanchat:local DIR
set -euo pipefail
binary=${1:?usage: scripts/docker/stage-offline.sh BINARY DIR}
stage=${2:?usage: scripts/docker/stage-offline.sh BINARY DIR}
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$stage"
mkdir -p "$stage/rootfs/usr/local/bin" "$stage/rootfs/etc" "$stage/data"
install -m 0755 "$binary" "$stage/rootfs/usr/local/bin/lanchat"
# "libx.so => /path (0x...)" and the loader's "/lib64/ld-linux-x86-64.so.2 (0x...)".
ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u |
    while read -r library; do
        mkdir -p "$stage/rootfs$(dirname "$library")"
        cp -L "$library" "$stage/rootfs$library"   # the file, under the name ldd found
    done
if ldd "$binary" | grep -q 'not found'; then
    echo "stage-offline: ldd cannot resolve every library of $binary" >&2
    exit 1
fi
echo 'lanchat:x:10001:10001:lanchat:/data:/nonexistent' > "$stage/rootfs/etc/passwd"
echo 'lanchat:x:10001:' > "$stage/rootfs/etc/group"
chown 10001:10001 "$stage/data" 2>/dev/null || true   # COPY --chown sets it in the image anyway
cp "$here/Dockerfile.offline" "$stage/Dockerfile"
