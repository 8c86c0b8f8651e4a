# syntax=docker/dockerfile:1
# Two stages: build dispatchd with the official Swift image, run it on slim Debian.
# The Swift standard library and Foundation are linked statically, so the runtime image needs
# only glibc, libstdc++, libpq, OpenSSL, libargon2 (password hashes), zlib and libcurl (SMTP for outgoing mail), plus PostgreSQL's client tools for
# `dispatchd backup` / `restore` (pg_dump must be at least the server's major version:
# bookworm's postgresql-client is 15, like docker-compose.yml's postgres:15).

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libpq-dev libssl-dev libargon2-dev zlib1g-dev libcurl4-openssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Tests/ too: the manifest declares the test targets and SwiftPM checks their folders exist.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product dispatchd --static-swift-stdlib \
    && install -D "$(swift build -c release --show-bin-path)/dispatchd" /out/dispatchd

FROM ${RUNTIME_IMAGE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       libpq5 libssl3 libargon2-1 zlib1g libcurl4 libstdc++6 ca-certificates tzdata curl postgresql-client-15 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin dispatch
WORKDIR /app
COPY --from=build /out/dispatchd /usr/local/bin/dispatchd
COPY migrations /app/migrations
# DATA_DIR is only used without DATABASE_URL (embedded PostgreSQL is not in this image);
# it still has to be writable for the generated secret fallback. data/backups is BACKUP_DIR's
# default (docker-compose.yml mounts a volume there).
RUN mkdir -p /app/data/backups && chown -R dispatch:dispatch /app/data
ENV HOST=0.0.0.0 \
    PORT=8080 \
    MIGRATIONS_DIR=/app/migrations \
    DATA_DIR=/app/data \
    LOG_FORMAT=json
USER dispatch
EXPOSE 8080
# /readyz: database reachable and migrated. Uses the PORT the container runs with.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD curl -fsS "http://127.0.0.1:${PORT}/readyz" >/dev/null || exit 1
ENTRYPOINT ["dispatchd"]
CMD ["serve"]
