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
apt-get download libeigen3-dev libboost1.74-dev libboost-context1.74-dev libboost-context1.74.0 \
  catch2 libcli11-dev nlohmann-json3-dev \
  libfmt-dev libfmt9 librandom123-dev
# Open MPI 4.1 and the libraries it loads (8 MB), for `mpirun alloclab sweep` over the GPUs of a
# machine of several (scripts/gpu.sh engine mpi-sweep); gpu-setup.sh points OPAL_PREFIX at the copy.
apt-get download openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libhwloc15 \
  libevent-2.1-7 libevent-core-2.1-7 libevent-pthreads-2.1-7 libpmix2 libfabric1 libucx0 \
  libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200 libpsm2-2 libpsm-infinipath1 libnuma1 \
  libmunge2 libltdl7 libpciaccess0 libgfortran5 libxnvctrl0
ls -la
