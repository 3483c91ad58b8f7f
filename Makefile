# decentrl: set-up, tests, demo and gas report.
#
#   make setup   Python venv (.venv), npm packages, tools/bin links, solc for py-solc-x, brownie networks
#   make test    setup + Chromium for the explorer's browser test (apt, when missing), then side by side:
#                brownie test (starts anvil itself); ruff, the subgraph build, slither, forge coverage (runs
#                every forge test) + thresholds
#   make lint    ruff check . (settings in pyproject.toml; make test runs it)
#   make test-forge  the forge tests on the optimized build (make test runs them once, under coverage)
#   make subgraph  graph codegen + graph build of subgraph/ (NETWORK=<name>: for deployments/<name>.json)
#   make demo    the real network: anvil, Redis, Celery nodes (2 samplers, 1 trainer, 3 validators) train CartPole;
#                watch it on the explorer page it serves (http://127.0.0.1:8850/)
#   make demo-hosts  the same task with each operator on a host of its own (network namespaces, own IPFS
#                node and Redis; needs root)
#   make demo-scripted  the protocol walked by scripted actors (brownie run scripts/demo.py)
#   make gas     brownie run bench/gas.py
#   make clean   build outputs;  make distclean  also .venv, node_modules and tools/bin
#
# Installs are keyed on the contents of their inputs (stamps under .make/ named by a hash of
# constraints.txt + requirements.txt + pyproject.toml, and of package.json + package-lock.json),
# so a second `make setup` does no install work; editing any of them re-runs that install.
# Only `make browser` (run by `make test`, not by setup or demo) uses apt: Chromium, when it is
# missing, as root or through sudo.
# To use the tools by hand: `. tools/env.sh` (PATH as below).

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

ROOT := $(CURDIR)
VENV := $(ROOT)/.venv
STAMPS := .make
PYTHON ?= $(shell command -v python3.11 || command -v python3)

export PATH := $(ROOT)/tools/bin:$(VENV)/bin:$(PATH)
# Keep pip quiet about the machine's optional local index folders.
PIP_FILTER := { grep -v -e 'is ignored: it is neither a file nor a directory' || true; }

COVERAGE_LINES ?= 95
COVERAGE_BRANCHES ?= 90
# The coverage summary shows contracts/ only (the thresholds are checked by tools/check_coverage.py).
COVERAGE_IGNORE := (node_modules|tests/|mocks/)

hash = $(shell cat $(1) 2>/dev/null | sha256sum | cut -c1-16)
PY_STAMP := $(STAMPS)/venv-$(call hash,constraints.txt requirements.txt pyproject.toml)
SLITHER_VENV := $(ROOT)/.venv-slither
SLITHER_STAMP := $(STAMPS)/slither-$(call hash,tools/slither/requirements.txt)
NPM_STAMP := $(STAMPS)/npm-$(call hash,package.json package-lock.json)

# A stamp says nothing once what it stands for is gone.
ifeq ($(wildcard $(VENV)/bin/brownie),)
  $(shell rm -f $(STAMPS)/venv-*)
endif
ifeq ($(wildcard $(SLITHER_VENV)/bin/slither),)
  $(shell rm -f $(STAMPS)/slither-*)
endif
ifeq ($(wildcard node_modules/.package-lock.json),)
  $(shell rm -f $(STAMPS)/npm-*)
endif

.PHONY: help setup python node links solc brownie-networks browser test test-brownie contract-checks lint test-forge slither coverage subgraph demo demo-hosts hosts-tools demo-scripted gas clean distclean FORCE

help:
	@sed -n '3,15p' Makefile | sed 's/^# \{0,1\}//'

# The Python and npm installs are independent (minutes each from scratch): they run side by side,
# each one's output printed whole when it ends.
setup:
	@$(MAKE) -j2 --output-sync=target python node
	@$(MAKE) links solc brownie-networks
	@echo "setup: ready (for brownie/forge by hand: . tools/env.sh)"

python: $(PY_STAMP)
node: $(NPM_STAMP)

$(PY_STAMP):
	@mkdir -p $(STAMPS)
	@test -x $(VENV)/bin/python || { echo "setup: creating $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "setup: pip install (constraints.txt pins eth-brownie 1.22.2's set)"
	$(VENV)/bin/pip install -q -c constraints.txt -r requirements.txt 2>&1 | $(PIP_FILTER)
	$(VENV)/bin/pip install -q -c constraints.txt -e '.[dev]' 2>&1 | $(PIP_FILTER)
	$(VENV)/bin/pip check
	@rm -f $(STAMPS)/venv-* && touch $@

$(NPM_STAMP):
	@mkdir -p $(STAMPS)
	@echo "setup: npm install"
	npm install --no-audit --no-fund --loglevel=error
	@rm -f $(STAMPS)/npm-* && touch $@
	@# npm may rewrite the lockfile; stamp its final contents too.
	@touch $(STAMPS)/npm-$$(cat package.json package-lock.json | sha256sum | cut -c1-16)

# anvil and forge as plain commands (brownie needs its development `cmd` to be exactly `anvil`).
links: tools/bin/anvil tools/bin/forge

tools/bin/anvil: | $(NPM_STAMP)
	@mkdir -p tools/bin
	ln -sfn ../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil $@
	@test -x $@

tools/bin/forge: | $(NPM_STAMP)
	@mkdir -p tools/bin
	ln -sfn ../../node_modules/@foundry-rs/forge-linux-amd64/bin/forge $@
	@test -x $@

# Both check state outside the repo (~/.solcx, ~/.brownie), so they always run; each is a no-op
# in well under a second when nothing changed.
solc: | $(NPM_STAMP) $(PY_STAMP)
	@$(VENV)/bin/python tools/install_solc.py

brownie-networks: | $(PY_STAMP)
	@$(VENV)/bin/python tools/configure_brownie.py

# The explorer's browser test drives Debian's Chromium through playwright (no `playwright install`:
# it downloads a browser build these machines cannot fetch).
CHROMIUM := /usr/lib/chromium/chromium
browser:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then echo "setup: apt-get install chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then echo "setup: sudo apt-get install chromium"; \
	  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "setup: $(CHROMIUM) is missing and this user cannot apt-get: install Debian's chromium package" \
	  "(apt-get install -y chromium) for the explorer's browser test"; exit 1; fi
	@test -x $(CHROMIUM)

# tests/workers/hosts/ (and make demo-hosts) make network namespaces with iproute2's `ip`, as root.
hosts-tools:
	@if command -v ip >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ]; then echo "setup: apt-get install iproute2"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null; \
	else echo "setup: the multi-host tests need iproute2's ip and root: run make test as root"; exit 1; fi

# The Python suite and the contract checks run side by side, on every core the machine has (both
# are CPU-bound: the suite runs anvil, Redis and node processes, the checks mostly solc-js).
# --output-sync prints each side's output whole once it ends; either failing fails `make test`.
test: setup browser hosts-tools
	$(MAKE) -j2 --output-sync=recurse test-brownie contract-checks

# The lint goes first here (a second; a failure stops this side, the Python suite runs on). The
# subgraph build goes here, while the other side compiles the contracts; tests/subgraph/ builds it
# too when it runs first (the same lock: one build, the other finds it current).
# The forge suite runs once, under coverage: forge coverage runs every forge test on an unoptimized
# build and fails when one fails. A separate `forge test` repeated all of them on the optimized
# build for ~2 minutes of solc-js CPU; the optimized bytecode is what brownie compiles, and the
# whole Python suite and the demo run on it.
contract-checks:
	$(MAKE) lint
	flock $(SUBGRAPH_LOCK) $(MAKE) subgraph
	$(MAKE) slither
	$(MAKE) coverage

# The Python tree (workers, scripts, bench, tools, tests) against pyproject.toml's [tool.ruff]: lint
# only, no formatter.
lint: | $(PY_STAMP)
	$(VENV)/bin/ruff check .

# Two pytest-xdist workers (each with its own anvil; a test file stays on one worker, so its
# module fixtures keep their order).
TEST_WORKERS ?= 2

test-brownie:
	@$(VENV)/bin/python tools/port_free.py 8545 "brownie test starts its own anvil there and would attach to \
	this one instead; stop it (another run's chain, an anvil of your own) and run make test again"
	brownie compile  # here, not in the workers: two of them would load a half-written build/
	brownie test tests/ -n $(TEST_WORKERS) --dist loadfile --durations=30  # the slowest tests, for keeping make test under 20 min

# The subgraph (subgraph/README.md): the manifest is filled from a deployment record, then graph
# codegen and graph build compile the mappings to WASM (fully offline). Without NETWORK it is built
# for the fixed placeholder record subgraph/placeholder-deployment.json: the tests need the WASM,
# not real addresses. GRAPH_NETWORK names the chain as the graph node knows it (default: the
# record's brownie network name, e.g. development). A no-op when nothing changed; tests/subgraph/ runs it too (under a lock).
GRAPH := $(ROOT)/node_modules/.bin/graph
SUBGRAPH_RECORD := $(if $(NETWORK),$(or $(DECENTRL_DEPLOYMENTS_DIR),deployments)/$(NETWORK).json,subgraph/placeholder-deployment.json)
SUBGRAPH_INPUTS := $(shell find subgraph/src -name '*.ts' 2>/dev/null) subgraph/schema.graphql $(wildcard subgraph/abis/*.json)

SUBGRAPH_LOCK := $(STAMPS)/subgraph-test.lock

subgraph: subgraph/build/.built

subgraph/subgraph.yaml: FORCE | $(PY_STAMP)
	@$(VENV)/bin/python tools/subgraph_manifest.py --deployment $(SUBGRAPH_RECORD) --out $@ \
		$(if $(GRAPH_NETWORK),--graph-network $(GRAPH_NETWORK))

subgraph/build/.built: subgraph/subgraph.yaml $(SUBGRAPH_INPUTS) | $(NPM_STAMP)
	@echo "subgraph: graph codegen && graph build (log: subgraph/build.log)"
	@cd subgraph && { $(GRAPH) codegen --skip-migrations subgraph.yaml && $(GRAPH) build --skip-migrations subgraph.yaml; } \
		> build.log 2>&1 || { cat build.log; exit 1; }
	@touch $@

FORCE:

# Static analysis of contracts/ (settings in slither.config.json): fails on any medium or high
# finding; the accepted ones are marked in the code and justified in SPECIFICATION.md §10.
slither: setup $(SLITHER_STAMP)
	$(SLITHER_VENV)/bin/slither .

$(SLITHER_STAMP):
	@mkdir -p $(STAMPS)
	@test -x $(SLITHER_VENV)/bin/python || $(PYTHON) -m venv $(SLITHER_VENV)
	$(SLITHER_VENV)/bin/pip install -q -r tools/slither/requirements.txt 2>&1 | $(PIP_FILTER)
	@rm -f $(STAMPS)/slither-* && touch $@

test-forge:
	forge test --offline

coverage:
	rm -f lcov.info
	forge coverage --offline --report summary --report lcov --no-match-coverage '$(COVERAGE_IGNORE)'
	python tools/check_coverage.py lcov.info --lines $(COVERAGE_LINES) --branches $(COVERAGE_BRANCHES)

# decentrl demo deploys from brownie's build output, so compile first (a no-op when up to date).
# The explorer page follows the run at http://127.0.0.1:8850/ (or the next free port, printed);
# `make demo DEMO_ARGS="--explorer 8850 --linger"` keeps the whole network up after the run (until
# Ctrl-C; `--linger 600`: 10 minutes) and prints how to use it.
DEMO_ARGS ?= --explorer 8850
demo: setup
	brownie compile >/dev/null
	decentrl demo $(DEMO_ARGS)

# The demo's task with each operator on a host of its own (network namespaces: needs root).
demo-hosts: setup hosts-tools
	brownie compile >/dev/null
	decentrl demo --hosts

# brownie_cli.py is `brownie` that also runs scripts in a checkout path with a dot in it.
BROWNIE_RUN := python tools/brownie_cli.py run

demo-scripted: setup
	$(BROWNIE_RUN) scripts/demo.py

gas: setup
	$(BROWNIE_RUN) $(ROOT)/bench/gas.py

clean:
	rm -rf build reports cache lcov.info .hypothesis subgraph/build subgraph/generated subgraph/subgraph.yaml subgraph/build.log
	find . -name __pycache__ -type d -not -path './.venv/*' -not -path './node_modules/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) $(SLITHER_VENV) node_modules tools/bin $(STAMPS)
