# The CUPTI collector library, injected into the profiled program (CUDA_INJECTION64_PATH).
# It does not link libcuda (it resolves the driver the target loaded), so prism can dlopen it
# for pass counts on a machine with no GPU driver. The rpath finds libcupti at run time.
comma := ,
CUPTI_SRC := $(wildcard src/collect/cupti/*.c) src/util/gpulock.c src/util/csvfield.c
CUPTI_LIBDIRS := $(CUDA_HOME)/lib64 $(CUDA_HOME)/extras/CUPTI/lib64
libprism-cupti.so: $(CUPTI_SRC) src/collect/cupti/collector.h src/util/gpulock.h src/util/csvfield.h
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -fPIC -shared -fvisibility=hidden \
	  -o $@ $(CUPTI_SRC) \
	  -Isrc/collect/cupti/shim -I$(CUDA_HOME)/include -I$(CUDA_HOME)/extras/CUPTI/include \
	  $(addprefix -L,$(CUPTI_LIBDIRS)) -Wl,-rpath,'$$ORIGIN' \
	  $(addprefix -Wl$(comma)-rpath$(comma),$(CUPTI_LIBDIRS)) \
	  -Wl,--no-undefined -lcupti -ldl -lpthread -lm

# GPU tests (opt-in, on a machine with an NVIDIA GPU): tests/gpu/run-cupti-check.sh.
NVCC ?= $(CUDA_HOME)/bin/nvcc
NVCC_ARCH ?= sm_90
tests/bin/vec_kernels: tests/gpu/vec_kernels.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $<

# The programs behind workloads-sample/ (tests/gpu/run-profile-check.sh profiles them).
tests/bin/samples: tests/gpu/samples.cu tests/gpu/common.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $<

# Seven kernel kinds with one clear limiter each (metric checks against ncu, replay modes,
# findings).
tests/bin/kinds: tests/gpu/kinds.cu tests/gpu/common.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $<

# Kernels with a known limiter each, and a cuBLAS GEMM (the findings ground truth:
# tests/gpu/run-findings-check.sh).
tests/bin/limiters: tests/gpu/limiters.cu tests/gpu/common.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $< -lcublas
# The same classes written otherwise (other strides, widths, pipes), after the rules
tests/bin/variants: tests/gpu/variants.cu tests/gpu/common.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $< -lcublas
# Held-out kernels of the same classes, expected limiters written before any output
tests/bin/holdout: tests/gpu/holdout.cu tests/gpu/common.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $< -lcublas
tests/bin/limiters-nocublas: tests/gpu/limiters.cu tests/gpu/common.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -DNO_CUBLAS -o $@ $<

# A small driver of the NVIDIA backend (the backend reads its family's data, so it links
# prism's library); build it with STATIC_LIBS=1 for the device machine, which has neither
# libyaml nor libcsv.
tests/bin/t-backend-cupti: tests/gpu/t-backend-cupti.c $(BUILD)/libprism.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libprism.a $(LDLIBS)

# An MPI program whose ranks exchange data between kernels (issue 21); built where MPI is
# (the device machine): nvcc compiles, the MPI C++ wrapper links.
MPICXX ?= mpicxx
tests/bin/mpi_ranks: tests/gpu/mpi_ranks.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -c -o $@.o $< $(addprefix -I,$(shell $(MPICXX) --showme:incdirs 2>/dev/null))
	$(MPICXX) -o $@ $@.o -L$(CUDA_HOME)/lib64 -lcudart -Wl,-rpath,$(CUDA_HOME)/lib64
	rm -f $@.o

.PHONY: gpu-tests
gpu-tests: libprism-cupti.so tests/bin/vec_kernels tests/bin/t-backend-cupti tests/bin/samples tests/bin/kinds tests/bin/hotspots tests/bin/host_phase tests/bin/fallback

# Three kernels with one slow line each (strided load, divergent branch, bank conflict), with
# line information, for PC sampling (issue 35; tests/pcsamp_h100.py).
tests/bin/hotspots: tests/gpu/hotspots.cu
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -lineinfo -arch=$(NVCC_ARCH) -o $@ $<

# A program whose host work (a busy loop) outweighs its kernels: the profile's cost where
# the GPU is mostly idle (bench/cost-h200.md).
# Launches the collector's own replay cannot replay (managed memory, cooperative), for the
# fallback check of bench/hybrid-replay.sh.
tests/bin/fallback: tests/gpu/fallback.cu tests/gpu/common.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $<

tests/bin/host_phase: tests/gpu/host_phase.cu tests/gpu/common.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -arch=$(NVCC_ARCH) -o $@ $<
