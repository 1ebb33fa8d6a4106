#!/usr/bin/env bash
# podman with the settings this project's image build and image test need: our containers.conf
# (no default ulimits) and runc as the OCI runtime (Debian's default, crun, is not always
# installed, and runc is the one known to work here). Arguments are passed to podman as they are.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# A caller's own containers.conf wins: it may know better about its machine.
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/image/containers.conf}"
if ! command -v podman >/dev/null 2>&1; then
  echo "scripts/podman.sh: podman is not installed (Debian: apt-get install -y podman runc)" >&2
  exit 127
fi
runtime="${PODMAN_RUNTIME:-$(command -v runc || true)}"
if [[ -z "$runtime" ]]; then
  echo "scripts/podman.sh: runc is not installed (Debian: apt-get install -y runc)" >&2
  exit 127
fi
# PODMAN_STORAGE_DRIVER=vfs where the kernel cannot mount overlay (slow, but works anywhere).
exec podman --runtime "$runtime" ${PODMAN_STORAGE_DRIVER:+--storage-driver "$PODMAN_STORAGE_DRIVER"} "$@"
