# Entry points a newcomer needs; `.ci/run` calls `make test`.
.PHONY: demo test lint bench

demo:
	cargo run --release -p wafer-cli -- demo

test:
	cargo test --workspace

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

bench:
	cargo bench --workspace
