# The Antler server image: a Rust build (dependencies cached in their own layer), a web UI
# build, and a slim Debian runtime running as a non-root user.
#
#   docker compose up --build        (see docker-compose.yml and README)
#
# Build arguments swap the inputs without changing the stages: the base images, and
# PREBUILT_* paths (inside the build context) of binaries or a web build made elsewhere,
# which `make compose-test` uses on machines that cannot pull the rust and node images.
ARG RUST_IMAGE=rust:1-bookworm
ARG NODE_IMAGE=node:20-bookworm-slim
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${RUST_IMAGE} AS server-build
ARG PREBUILT_SERVER=""
ARG PREBUILT_MOCK=""
WORKDIR /src
# Manifests first, with stub sources, so dependencies build in a layer that only changes
# when Cargo.toml or Cargo.lock do. Every crate of the workspace must be listed: `cargo
# metadata` fails the build on a missing one (the stub build itself may fail, as stubs do not
# compile against each other; tests/repo checks the list too).
COPY Cargo.toml Cargo.lock ./
COPY .cargo .cargo
COPY crates/agent-runtime/Cargo.toml crates/agent-runtime/Cargo.toml
COPY crates/app/Cargo.toml crates/app/Cargo.toml
COPY crates/cli/Cargo.toml crates/cli/Cargo.toml
COPY crates/gateway/Cargo.toml crates/gateway/Cargo.toml
COPY crates/mcp/Cargo.toml crates/mcp/Cargo.toml
COPY crates/mock-llm/Cargo.toml crates/mock-llm/Cargo.toml
COPY crates/protocol/Cargo.toml crates/protocol/Cargo.toml
COPY crates/sandbox/Cargo.toml crates/sandbox/Cargo.toml
COPY crates/skills/Cargo.toml crates/skills/Cargo.toml
COPY crates/store/Cargo.toml crates/store/Cargo.toml
RUN if [ -z "$PREBUILT_SERVER" ]; then \
      for c in crates/*/; do mkdir -p "$c/src" && echo "" > "$c/src/lib.rs" && echo "fn main() {}" > "$c/src/main.rs"; done \
      && cargo metadata --locked --offline --no-deps --format-version 1 >/dev/null \
      && { cargo build --release --locked -p antler-cli -p antler-mock-llm 2>/dev/null || true; }; \
    fi
COPY . .
RUN mkdir -p /out \
 && if [ -n "$PREBUILT_SERVER" ]; then \
      cp "$PREBUILT_SERVER" /out/antler && cp "$PREBUILT_MOCK" /out/antler-mock-llm; \
    else \
      touch crates/*/src/*.rs \
      && cargo build --release --locked -p antler-cli --bin antler -p antler-mock-llm --bin antler-mock-llm \
      && cp target/release/antler target/release/antler-mock-llm /out/; \
    fi

FROM ${NODE_IMAGE} AS web-build
ARG PREBUILT_WEB=""
WORKDIR /ctx
# Packages first, in their own layer.
COPY frontend/package.json frontend/package-lock.json frontend/
RUN if [ -z "$PREBUILT_WEB" ]; then cd frontend && npm ci --no-audit --no-fund; fi
COPY . .
RUN mkdir -p /out \
 && if [ -n "$PREBUILT_WEB" ]; then \
      cp -r "$PREBUILT_WEB"/. /out/; \
    else \
      cd frontend && npm run build && cp -r dist/. /out/; \
    fi

FROM ${RUNTIME_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates git \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 antler \
 && useradd --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin antler \
 && mkdir -p /app/skills/custom /var/lib/antler \
 && chown -R antler:antler /app /var/lib/antler
COPY --from=server-build /out/antler /out/antler-mock-llm /usr/local/bin/
COPY --from=web-build /out/ /app/web/
COPY skills/public /app/skills/public
COPY config/antler.example.yaml /app/config/antler.example.yaml
WORKDIR /app
ENV ANTLER_BIND=0.0.0.0:8000 \
    ANTLER_DATA_DIR=/var/lib/antler \
    ANTLER_SKILLS_DIR=/app/skills \
    ANTLER_WEB_DIR=/app/web \
    ANTLER_LOG_FORMAT=json
USER antler
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8000 && printf 'GET /health HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q '\"status\":\"ok\"' <&3"]
ENTRYPOINT ["antler"]
CMD ["serve"]
