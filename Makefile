# latrec - thin wrapper over the CMake build.
#   make deps     install the Debian build dependencies when missing
#   make          build (build/)
#   make check    deps + build + every test (ctest: unit, cli, install, python)
#   make run      record the bundled E3 loop and print its report
#   make bench    the benchmarks, figures on stdout (SOAK_SECONDS=60 adds the soak;
#                 TSC_SECONDS=0 skips the 60 s TSC conversion-error run)
#   make fuzz     build the fuzz targets with clang and share FUZZ_SECONDS among them
#   make install  PREFIX=/usr/local DESTDIR=

BUILD      ?= build
PREFIX     ?= /usr/local
DESTDIR    ?=
CMAKE_ARGS ?=
FUZZ_SECONDS ?= 80
SOAK_SECONDS ?= 0
TSC_SECONDS ?= 60
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)

DEB_PACKAGES = cmake gcc make pkg-config clang llvm libclang-rt-14-dev \
               libcmocka-dev bats libsmartcols-dev libjansson-dev \
               libtracefs-dev libtraceevent-dev libbpf-dev bpftool \
               linux-libc-dev rt-tests libbpf-tools util-linux jq time man-db strace \
               python3-dev python3-pytest chromium \
               libncurses-dev tmux

.PHONY: all deps configure build check run bench fuzz install clean

all: build

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    missing=$$(echo $$missing); \
	    if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; fi; \
	    if [ -n "$$SUDO" ] && ! command -v sudo >/dev/null 2>&1; then \
	        echo "make deps: missing $$missing; not root and no sudo: run 'make deps' as root (or apt-get install $$missing), then make again" >&2; \
	        exit 1; \
	    fi; \
	    echo "installing: $$missing"; \
	    $$SUDO apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@# npm (test-time tools, tests/js): Debian's package only where no npm is
	@# installed at all (a Node.js that brings its own npm must not be replaced).
	@if ! command -v npm >/dev/null 2>&1; then \
	    if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; fi; \
	    if [ -n "$$SUDO" ] && ! command -v sudo >/dev/null 2>&1; then \
	        echo "make deps: npm is missing, not root and no sudo: run 'make deps' as root (or apt-get install npm)" >&2; \
	        exit 1; \
	    fi; \
	    echo "installing: npm"; \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq npm >/dev/null; \
	fi

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS)

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j$(JOBS)

check: deps build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

run: deps build
	$(BUILD)/src/cli/latrec record -q -o $(BUILD)/demo.data -f -- \
	    $(BUILD)/tests/workloads/e3loop --duration 3
	$(BUILD)/src/cli/latrec report $(BUILD)/demo.data

bench: deps build
	tests/bench/run.sh $(BUILD) $(SOAK_SECONDS) $(TSC_SECONDS)
	tests/bench/bench_convert.sh --latrec $(BUILD)/src/cli/latrec --work $(BUILD)/bench-convert
	tests/bench/bench_report.sh $(BUILD)
	tests/bench/bench_html.sh $(BUILD)
	tests/bench/bench_engine.sh $(BUILD)
	tests/bench/bench_top.sh $(BUILD)
	$(BUILD)/tests/bench/bench_paths
	rm -rf $(BUILD)/bench-legs && $(BUILD)/tests/bench/bench_gen_rings --dir $(BUILD)/bench-legs > /dev/null && \
	    $(BUILD)/tests/bench/bench_legs $(BUILD)/bench-legs; rc=$$?; rm -rf $(BUILD)/bench-legs; exit $$rc
	@if [ -x tests/bench/bench_sched.sh ]; then tests/bench/bench_sched.sh $(BUILD); fi
	tests/bench/bench_python.sh $(BUILD)

# The four fuzz targets share FUZZ_SECONDS (a quarter each), each from its
# seed corpus in tests/fuzz (what it finds stays in $(BUILD)-fuzz/corpus-*).
FUZZ_TARGETS = ring:corpus ringset:corpus_ringset catalog:corpus_catalog stages:corpus_stages
fuzz: deps
	CC=clang cmake -S . -B $(BUILD)-fuzz -DLATREC_FUZZ=ON $(CMAKE_ARGS)
	cmake --build $(BUILD)-fuzz -j$(JOBS) --target fuzz_ring fuzz_ringset fuzz_catalog fuzz_stages
	@each=$$(( $(FUZZ_SECONDS) / 4 )); [ $$each -ge 1 ] || each=1; \
	for tc in $(FUZZ_TARGETS); do \
	    t=$${tc%%:*}; c=$${tc#*:}; \
	    mkdir -p $(BUILD)-fuzz/corpus-$$t; \
	    echo "== fuzz_$$t, $$each s"; \
	    $(BUILD)-fuzz/tests/fuzz/fuzz_$$t -max_total_time=$$each -close_fd_mask=2 \
	        -print_final_stats=1 $(BUILD)-fuzz/corpus-$$t tests/fuzz/$$c || exit 1; \
	done

# ldconfig: the loader finds a new liblatrec.so in /usr/local/lib only once
# its cache is rebuilt (root, no DESTDIR).
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi

clean:
	rm -rf $(BUILD) $(BUILD)-fuzz
