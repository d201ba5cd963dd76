#!/usr/bin/env bash
# Installs the Debian packages that building, testing and benchmarking tenure need, only the
# missing ones. Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config clang-format
  libboost-dev libboost-system-dev libssl-dev openssl
  nlohmann-json3-dev libsqlite3-dev libyaml-cpp-dev libcli11-dev libjemalloc-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-kubernetes python3-cryptography
  etcd-server etcd-client
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  prometheus faketime
  clang libclang-rt-14-dev
  chromium fonts-dejavu-core
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# npm fetches the JavaScript client's test packages (and Node.js 22) from the npm registry. A
# Node.js installed outside Debian (NodeSource) brings its own npm: then nothing to install.
command -v npm > /dev/null || missing+=(npm)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
