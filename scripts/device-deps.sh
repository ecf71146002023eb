#!/usr/bin/env bash
# Downloads (here, with network) the Debian packages alloclab needs to configure on the device
# machine, which has nvcc/CMake/ninja but no Debian dev packages and no network.
# They land in .devdeps/ (git-ignored) and travel with `carry: [".devdeps"]`; on the device:
#   for f in .devdeps/*.deb; do dpkg -x "$f" /tmp/deps; done     # never into /
#   cmake ... -DCMAKE_PREFIX_PATH=/tmp/deps/usr
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .devdeps
cd .devdeps
apt-get download libeigen3-dev libboost1.74-dev catch2 libcli11-dev nlohmann-json3-dev \
  libfmt-dev libfmt9 librandom123-dev
ls -la
