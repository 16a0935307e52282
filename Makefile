# Entry points a newcomer needs; `.ci/run` calls `make test`.
.PHONY: demo test test-python lint bench

demo:
	cargo run --release -p wafer-cli -- demo

test:
	cargo test --workspace
	$(MAKE) test-python

# The Python package (python/, built by maturin) in a venv: lint, format check, tests.
VENV ?= .venv
test-python:
	test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	MATURIN_PEP517_ARGS="--profile ci" $(VENV)/bin/python -m pip install -q ".[test]"
	$(VENV)/bin/ruff check python examples/notebook.py
	$(VENV)/bin/ruff format --check python examples/notebook.py
	$(VENV)/bin/python -m pytest -q

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings

bench:
	cargo bench --workspace
