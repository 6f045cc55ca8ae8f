#!/usr/bin/env bash
# The test's stand-in for a Node image from a registry (this machine reaches Debian's packages and
# npm, not a container registry): Debian bookworm (debootstrap, minbase) with this machine's Node
# and npm copied in, the user `node` (uid 1000) of the official images, imported into podman's
# local store as $1 (default localhost/idv-node-base:20). Reused when it already exists.
set -euo pipefail
tag="${1:-localhost/idv-node-base:20}"
if podman image exists "$tag"; then echo "base image $tag exists"; exit 0; fi
for tool in debootstrap podman node; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y podman buildah runc debootstrap" >&2; exit 1; }
done
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
root=$(mktemp -d /var/tmp/idv-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >/dev/null
node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
# Smaller: no apt lists, documentation or caches.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/*
tar -C "$root" -c . | podman import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$tag" >/dev/null
echo "base image $tag: $(podman image inspect --format '{{.Size}}' "$tag") bytes"
