# Freshet: two commands on a fresh Debian machine.
#   make run    install what is missing, build, start the server on :4566
#   make test   the same set-up, then every test (and each fuzz target for
#               FUZZ_SECONDS, built into build-fuzz with clang; FUZZ=0 skips them)
#   make fuzz       build the libFuzzer targets (tests/fuzz/README.md)
#   make fuzz-run   build them and run each for FUZZ_SECONDS (default 60)
#   make test-asan  every test against an ASan+UBSan build in build-asan
#                   (docs/sanitizers.md)
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
FUZZ_DIR ?= build-fuzz
ASAN_DIR ?= build-asan
FUZZ ?= 1
FUZZ_SECONDS ?= 60
# -O1 -g: sanitizer builds fast enough to run the whole suite, with stacks.
SAN_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g"

.PHONY: all deps build run test unit-test slt-test integration-test clean bench fuzz fuzz-run test-asan

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/freshet --data-dir ./freshet-data

test: build $(if $(filter 1,$(FUZZ)),fuzz)
	@FUZZ_BUILD_DIR=$(FUZZ_DIR) FUZZ_SECONDS=$(if $(filter 1,$(FUZZ)),$(FUZZ_SECONDS),0) bash scripts/run-tests.sh $(BUILD_DIR)

$(FUZZ_DIR)/build.ninja:
	cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ $(SAN_FLAGS) -DFRESHET_FUZZ=ON

# Only the fuzz targets and the libraries they link (not the server).
fuzz: deps $(FUZZ_DIR)/build.ninja
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_sql fuzz_pgwire

fuzz-run: fuzz
	bash scripts/run-fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

$(ASAN_DIR)/build.ninja:
	cmake -S . -B $(ASAN_DIR) -G Ninja $(SAN_FLAGS) -DFRESHET_SANITIZE=address,undefined

test-asan: deps $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR) -j $(JOBS)
	@bash scripts/test-asan.sh $(ASAN_DIR)

clean:
	rm -rf $(BUILD_DIR)
