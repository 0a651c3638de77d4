# The roofline micro-benchmarks (included by the top Makefile). Each binary is built only where
# its compiler exists: prism-roofline-cuda with nvcc, prism-roofline-hip with hipcc. Neither is
# required; `prism roofline` says so when it finds none. They sit next to `prism` (build tree)
# and in $(PREFIX)/lib/prism (installed), where src/cmd_roofline.c looks for them.

NVCC  ?= $(CUDA_HOME)/bin/nvcc
HIPCC ?= $(firstword $(wildcard /opt/rocm/bin/hipcc) hipcc)
HAVE_NVCC  := $(shell command -v $(NVCC) >/dev/null 2>&1 && echo 1)
HAVE_HIPCC := $(shell command -v $(HIPCC) >/dev/null 2>&1 && echo 1)

ROOFLINE_CUDA := prism-roofline-cuda
ROOFLINE_HIP  := prism-roofline-hip
ROOFLINE_BIN  := $(if $(HAVE_NVCC),$(ROOFLINE_CUDA)) $(if $(HAVE_HIPCC),$(ROOFLINE_HIP))

# sm_80 machine code, sm_90a for Hopper's wgmma (the -gencode form: HOPPER.md), and compute_90
# PTX for newer parts (wgmma entries then skip themselves; the binary asks the device).
ROOFLINE_NVFLAGS ?= -O3 -std=c++17 -lineinfo \
        -gencode=arch=compute_80,code=sm_80 \
        -gencode=arch=compute_90a,code=sm_90a \
        -gencode=arch=compute_90,code=compute_90
# CDNA1-3; override with ROOFLINE_HIPFLAGS="--offload-arch=gfx942" to build one target.
ROOFLINE_HIPFLAGS ?= -O3 -std=c++17 --offload-arch=gfx908 --offload-arch=gfx90a \
        --offload-arch=gfx942

ROOFLINE_HDR := roofline/roofline_common.h

$(ROOFLINE_CUDA): roofline/roofline_cuda.cu $(ROOFLINE_HDR)
	$(NVCC) $(ROOFLINE_NVFLAGS) -o $@ $<

$(ROOFLINE_HIP): roofline/roofline_hip.cpp $(ROOFLINE_HDR)
	$(HIPCC) $(ROOFLINE_HIPFLAGS) -o $@ $<

.PHONY: roofline install-roofline clean-roofline
roofline: $(ROOFLINE_BIN)

# Hooks into the top Makefile's targets (prerequisites only; their recipes stay there).
all: $(ROOFLINE_BIN)
install: install-roofline
clean: clean-roofline

install-roofline: $(ROOFLINE_BIN)
	$(if $(strip $(ROOFLINE_BIN)),install -d $(DESTDIR)$(PREFIX)/lib/prism && \
	  install -m755 $(ROOFLINE_BIN) $(DESTDIR)$(PREFIX)/lib/prism/)

clean-roofline:
	rm -f $(ROOFLINE_CUDA) $(ROOFLINE_HIP)

# cmd_roofline.c looks in the install prefix too.
$(BUILD)/src/cmd_roofline.o: CPPFLAGS += -DPRISM_PREFIX='"$(PREFIX)"'
