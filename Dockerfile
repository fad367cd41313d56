# lanchat from source, for docker-compose.yml or `docker run`, on machines
# that reach a registry. Two stages: the official Swift image builds, its
# slim sibling (runtime libraries only) runs. Without a registry use
# scripts/docker/Dockerfile.offline (same image, from a host build).
#
#   docker build -t lanchat .
#   docker run --rm -it lanchat --nick alice
#
# SWIFT_VERSION picks the official image (swift:<version>-noble); the code
# needs Swift 6.0 or later.
ARG SWIFT_VERSION=6.2

FROM swift:${SWIFT_VERSION}-noble AS build
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libsqlite3-dev libssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Package.swift names the test targets too, so Tests/ comes along.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product lanchat \
    && install -D "$(swift build -c release --show-bin-path)/lanchat" /out/lanchat

FROM swift:${SWIFT_VERSION}-noble-slim
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libsqlite3-0 libssl3 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --create-home lanchat
COPY --from=build /out/lanchat /usr/local/bin/lanchat
USER lanchat
WORKDIR /data
ENV LANCHAT_DATA_DIR=/data
# History and node number live here: mount a volume to keep a node's identity.
VOLUME /data
# Discovery (broadcast) is 47474/udp; docker-compose.yml pins the TCP port
# to 47100 so peers can also be listed with --peer.
EXPOSE 47474/udp 47100/tcp
# The binary and its libraries load and run.
HEALTHCHECK --interval=5s --timeout=3s --retries=3 CMD ["lanchat", "--version"]
ENTRYPOINT ["lanchat"]
CMD ["--help"]
