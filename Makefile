# Antler. `make run` starts the server with embedded defaults; `make test` runs every test.
.PHONY: run test bench lint fmt snapshots fuzz-archive sandbox-image compose-test

run:
	cargo run --release -p antler-cli --bin antler -- serve

test:
	scripts/test.sh

bench:
	scripts/bench/run.sh

# Build antler-sandbox:latest (starts Docker and bootstraps debian:bookworm-slim if needed).
sandbox-image:
	scripts/sandbox-image.sh

# The docker-compose stack with local stand-ins for unpullable images, a scripted chat, teardown.
compose-test:
	scripts/compose-test.sh

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

fmt:
	cargo fmt --all

# Fuzz the .skill archive inspector for FUZZ_SECONDS (default 60).
fuzz-archive:
	scripts/fuzz-archive.sh

# Accept a deliberate API change into the OpenAPI snapshot (review the diff afterwards).
snapshots:
	UPDATE_SNAPSHOTS=1 cargo test -p antler-gateway --test openapi_snapshot
