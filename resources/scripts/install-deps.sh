#!/usr/bin/env bash
# Installs what QRocket needs to build and test on Debian 12, with apt-get, and only what is
# missing: on a machine that has everything it changes nothing and prints one line.
# Used by both README commands (build-and-run, build-and-test).
set -euo pipefail

# lld: links the hundred and fifty test programs in about a third of ld.bfd's time (CMakeLists.txt
# falls back to the default linker without it).
# libqt6opengl6-dev: Qt6Charts's CMake package needs Qt6OpenGL's, which qt6-base-dev lacks.
# libqt6network6 + libssl3: Qt's OpenSSL TLS backend (the plugin is in libqt6network6 and loads
# libssl3 at run time) for tls.server.mode / tls.enable; openssl: the TLS tests make their
# throwaway CA and certificates with it.
# qt6-httpserver-dev: the /metrics endpoint of both daemons (Qt6::HttpServer); its CMake package
# needs Qt6WebSockets's, which Debian 12 does not pull in: qt6-websockets-dev. prometheus: its
# promtool checks the exposition in tst_metrics (the test skips that check without it).
# libgrpc++-dev, libprotobuf-dev, protobuf-compiler, protobuf-compiler-grpc: the broker serves
# RocketMQ 5's gRPC protocol (broker/grpc/); protoc and grpc_cpp_plugin generate its C++ at build
# time, and the tests talk to it with the generated stub.
# etcd-server: controller mode elects masters through etcd (broker/controller/); its tests start
# their own etcd process on loopback (/usr/bin/etcd).
packages=(build-essential cmake ninja-build ccache lld pkg-config zlib1g-dev
          qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev clang-format nodejs npm
          libyaml-cpp-dev libqt6network6 libssl3 openssl
          qt6-httpserver-dev qt6-websockets-dev prometheus
          libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc etcd-server)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
# A node from elsewhere (nvm, /usr/local) is as good as Debian's for the interop tests.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    tmp=()
    for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || tmp+=("$p"); done
    missing=("${tmp[@]}")
fi

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all build and test dependencies are present"
    exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
