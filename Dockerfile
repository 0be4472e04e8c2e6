# SPDX-License-Identifier: BSD-3-Clause
#
# librte_roce in a container: a build stage with Debian 12's compiler and
# DPDK headers, and a slim runtime stage with the libraries, roce_perf,
# roce_dump, the NVMe-oF target roce_nvmf, the verbs launcher roce-run and
# the examples, run as a non-root user, no compiler.
#
# No registry is needed: BASE is a Debian 12 image made from Debian's archive
# by devtools/container-base.sh (the default name below), or any Debian 12
# image (BASE=debian:bookworm-slim where a registry is reachable).
#
#   devtools/container-base.sh
#   podman build --network host -t localhost/librte-roce .
#   docker build --network host -t localhost/librte-roce .
#
# Running it (hugepages, memif, capabilities): doc/deploy.md.

ARG BASE=localhost/deb12:base

FROM ${BASE} AS build
ARG DEBIAN_FRONTEND=noninteractive
# What devtools/install-deps.sh installs to build (no clang, no test tools).
RUN apt-get update && \
    apt-get install -y --no-install-recommends \
        gcc pkg-config meson ninja-build python3 \
        libdpdk-dev libnuma-dev libibverbs-dev libisal-dev liburing-dev && \
    rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# --libdir lib: /usr/local/lib is on the loader's path (lib64 would not be)
RUN meson setup /build -Dtests=false -Dfuzz=disabled --buildtype=release \
        --prefix=/usr/local --libdir=lib && \
    ninja -C /build && \
    DESTDIR=/stage meson install -C /build --no-rebuild && \
    install -m 0755 /build/examples/roce_demo/roce_demo \
        /build/examples/rc_pingpong/rc_pingpong /build/examples/uc_pingpong/uc_pingpong \
        /build/examples/ud_pingpong/ud_pingpong /build/examples/srq_pingpong/srq_pingpong \
        /build/examples/rping/rping /stage/usr/local/bin/ && \
    install -D -m 0644 config/roce.conf.example /stage/usr/local/share/roce/roce.conf.example

FROM ${BASE} AS runtime
ARG DEBIAN_FRONTEND=noninteractive
# The shared libraries the programs link (ldd), and the PMDs the EAL loads
# from its plugin directory: memif and af_packet for containers, ring for
# --loopback, mlx5 and iavf for SR-IOV VFs (doc/deploy.md). No -dev package.
RUN apt-get update && \
    apt-get install -y --no-install-recommends \
        libisal2 libibverbs1 libnuma1 liburing2 \
        librte-eal23 librte-ethdev23 librte-mbuf23 librte-mempool23 \
        librte-mempool-ring23 librte-ring23 librte-net23 librte-pdump23 \
        librte-pcapng23 librte-telemetry23 librte-kvargs23 \
        librte-bus-vdev23 librte-bus-pci23 \
        librte-net-memif23 librte-net-af-packet23 librte-net-ring23 \
        librte-net-mlx5-23 librte-net-iavf23 && \
    rm -rf /var/lib/apt/lists/*
COPY --from=build /stage/ /
RUN ldconfig && \
    groupadd --gid 10001 roce && \
    useradd --uid 10001 --gid 10001 --create-home --home-dir /home/roce roce
# The EAL keeps its runtime files under $XDG_RUNTIME_DIR when not root.
ENV XDG_RUNTIME_DIR=/tmp
USER 10001
WORKDIR /home/roce
CMD ["roce_perf", "--no-huge", "-m", "128", "--no-shconf", "--no-pci", "-l", "0", "--", "--loopback", "-n", "200"]
