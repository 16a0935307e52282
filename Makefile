# Entry points a newcomer needs; `.ci/run` calls `make test`.
.PHONY: demo test test-rust test-python python-ext python-tests lint bench

demo:
	cargo run --release -p wafer-cli -- demo

# The Rust suite and the Python extension's build run side by side (each output printed
# whole when it ends), then the Python suite, which uses both.
test:
	$(MAKE) -j2 --output-sync=target test-rust python-ext
	$(MAKE) python-tests

# `+`: make hands its jobserver to cargo (and to maturin's cargo below), so the two
# builds share the -j2 slots instead of warning that the jobserver is unreachable.
test-rust:
	+cargo test --workspace

# The Python package (python/, built by maturin) in a venv: lint, format check, tests.
VENV ?= .venv
python-ext:
	test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	cd python && cargo metadata --locked --format-version 1 >/dev/null || { echo "python/Cargo.lock is out of date: run 'cd python && cargo update --workspace' and commit it" >&2; exit 1; }
	+MATURIN_PEP517_ARGS="--profile ci --locked" $(VENV)/bin/python -m pip install -q ".[test]"

test-python: python-ext
	$(MAKE) python-tests

python-tests:
	$(VENV)/bin/ruff check python examples/notebook.py bench
	$(VENV)/bin/ruff format --check python examples/notebook.py bench
	$(VENV)/bin/python -m pytest -q -rs

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

bench:
	cargo bench --workspace
