# Antler. `make run` starts the server with embedded defaults; `make test` runs every test.
.PHONY: run test bench lint fmt snapshots fuzz sandbox-image frontend demo e2e compose-test

# Node and pip trust only the CA lists they ship. Where the machine reaches the package
# registries through a CA of its own (in the system bundle), they must use the system's too,
# also from a shell with nothing set (as CI runs `make test`).
SYSTEM_CA := $(wildcard /etc/ssl/certs/ca-certificates.crt)
ifneq ($(SYSTEM_CA),)
export NODE_EXTRA_CA_CERTS ?= $(SYSTEM_CA)
export PIP_CERT ?= $(SYSTEM_CA)
endif

# The sandbox images first: the server's default is full (slim when only slim could be built;
# no sandbox commands without Docker). Both are kept once built.
run: frontend
	scripts/sandbox-image.sh all || echo "make run: the sandbox images could not all be built (see above); the server says which it uses at /health" >&2
	cargo run --release -p antler-cli --bin antler -- serve

test:
	scripts/test.sh

bench:
	scripts/bench/run.sh

# Build the sandbox images antler-sandbox:slim (also :latest) and :full (starts Docker and
# bootstraps debian:bookworm-slim if needed; full also needs the PyPI and npm registries).
sandbox-image:
	scripts/sandbox-image.sh all

# The docker-compose stack with local stand-ins for unpullable images, a scripted chat, teardown.
compose-test:
	scripts/compose-test.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

fmt:
	cargo fmt --all

# Fuzz the .skill archive inspector and the SKILL.md parser for FUZZ_SECONDS each (default 60).
fuzz:
	scripts/fuzz.sh

# Accept a deliberate API change into the OpenAPI snapshot (review the diff afterwards).
snapshots:
	UPDATE_SNAPSHOTS=1 cargo test -p antler-gateway --test openapi_snapshot

# Build the web UI into frontend/dist when it is missing or older than its sources (npm ci +
# npm run build; needs Node.js 20.19+). FORCE=1 rebuilds.
frontend:
	scripts/frontend.sh

# Try the whole flow without an API key: a scripted model (demo/mock.yaml), the Docker
# sandbox and the UI on http://127.0.0.1:8000 (data in ./data-demo). Ctrl-C stops it.
demo:
	scripts/demo.sh

# End-to-end tests of the web UI (part of `make test`): Chromium via playwright-core against
# the real server, the Docker sandbox and antler-mock-llm; screenshots in target/e2e-screenshots.
e2e:
	scripts/e2e.sh
