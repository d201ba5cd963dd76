# tenure: `make demo` builds everything and runs `tenure demo`; `make test` builds and runs every
# test (release build, then AddressSanitizer+UBSan and ThreadSanitizer builds of the unit tests,
# then a short run of every libFuzzer target).
# Both install missing Debian packages first (scripts/bootstrap.sh).

BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= 2
CMAKE_ARGS ?=

.PHONY: all bootstrap build demo test test-release test-asan test-tsan tsan-build tsan-store tsan-others fuzz-build test-fuzz fuzz bench chaos format clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) > /dev/null
	@cmake --build $(BUILD) -j$(JOBS)

demo: build
	$(BUILD)/src/cli/tenure demo

test: test-release test-asan test-tsan test-fuzz

# Tests run two at a time: most of them wait on timers and processes, not on the CPU.
test-release: build
	ctest --test-dir $(BUILD) -j$(JOBS) --output-on-failure --timeout 600

test-asan: bootstrap
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTENURE_SANITIZE=address -DTENURE_BENCH=OFF > /dev/null
	@cmake --build $(ASAN_BUILD) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) -j$(JOBS) --output-on-failure --timeout 900

test-tsan: tsan-build
	@$(MAKE) --no-print-directory -j2 --output-sync=target tsan-store tsan-others

tsan-build: bootstrap
	@cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTENURE_SANITIZE=thread > /dev/null
	@cmake --build $(TSAN_BUILD) -j$(JOBS) --target store_test server_test election_test coordination_test dashboard_test library_server_test

# Two lanes, each test's output printed whole when it ends: store_test (mostly waiting on etcd)
# takes as long alone as the five others together.
# gRPC and protobuf come from Debian without ThreadSanitizer: their own synchronization is
# invisible to it, so what they copy through its interceptors (memcpy of a request being sent)
# is not judged; checking it also made each such access slower as the run went on.
TSAN_ENV = TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1
tsan-store:
	$(TSAN_ENV) $(TSAN_BUILD)/src/store/store_test

tsan-others:
	$(TSAN_ENV) $(TSAN_BUILD)/src/server/server_test
	$(TSAN_ENV) $(TSAN_BUILD)/src/election/election_test
	$(TSAN_ENV) $(TSAN_BUILD)/src/coordination/coordination_test
	$(TSAN_ENV) $(TSAN_BUILD)/src/dashboard/dashboard_test
	$(TSAN_ENV) $(TSAN_BUILD)/tests/cpp/library_server_test

# Every fuzz target for FUZZ_TEST_SECONDS from its seed corpus (clang, ASan + UBSan).
FUZZ_TEST_SECONDS ?= 20
fuzz-build: bootstrap
	@CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTENURE_SANITIZE=fuzzer \
	  -DTENURE_FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) > /dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS)

test-fuzz: fuzz-build
	ctest --test-dir $(FUZZ_BUILD) -j$(JOBS) --output-on-failure

# The long fuzz run (outside CI): FUZZ_SECONDS per target; figures in docs/reliability.md.
FUZZ_SECONDS ?= 600
fuzz:
	@$(MAKE) --no-print-directory fuzz-build FUZZ_TEST_SECONDS=$(FUZZ_SECONDS)
	ctest --test-dir $(FUZZ_BUILD) -j$(JOBS) --output-on-failure

bench: build
	$(BUILD)/bench/server_bench

# The fault suite's long profile (outside CI): at least CHAOS_CHANGES leader changes across every
# fault, both stores and every candidate kind; figures in docs/reliability.md.
CHAOS_CHANGES ?= 1000
CHAOS_REPORT  ?= $(BUILD)/chaos-report.json
chaos: build
	TENURE_CLOCK_SKEW_LIB=$(BUILD)/tests/libtenure_clock_skew.so scripts/chaos.sh $(CHAOS_REPORT) $(CHAOS_CHANGES)

# Rewrites every C++ file as .clang-format asks (the lint.clang_format test checks it).
format: bootstrap
	git ls-files '*.cc' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
