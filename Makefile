# prism: one non-recursive Makefile. pkg-config for every library that ships a .pc file.
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
OPTFLAGS ?= -O2 -g
CFLAGS   ?= $(OPTFLAGS)
# always added, also when CFLAGS comes from the command line (CI adds -Werror)
override CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -MMD -MP
SAN      ?=
BUILD    ?= build

PKGS      := yaml-0.1 sqlite3 ncursesw zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv
# These libraries are linked statically where their archive (libX.a) is installed: a
# process start then maps and relocates 3 shared objects (libc, libm, ld.so) instead of 8.
# `$(CC) -print-file-name=libX.a` prints a path where the archive exists, the bare name
# otherwise: then that library stays dynamic (-lX). libc, libm, libdl and libpthread always
# stay dynamic (prism dlopens libcuda, NVML and libstdc++). STATIC_DEPS= links all of them
# dynamically. Debian 12's libyaml-dev, libcsv-dev, libsqlite3-dev and libncurses-dev ship
# the archives.
STATIC_DEPS ?= yaml csv sqlite3 ncursesw tinfo z
static_a    = $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a 2>/dev/null))
STATIC_HAVE := $(foreach l,$(STATIC_DEPS),$(if $(call static_a,$(l)),$(l)))
PKG_LIBS    := $(foreach f,$(PKG_LIBS),$(if $(filter $(STATIC_HAVE:%=-l%),$(f)),-l:lib$(f:-l%=%).a,$(f)))
# STATIC_LIBS=1 (the device machine, which has neither libyaml nor libcsv installed) links
# those two statically or fails.
ifeq ($(STATIC_LIBS),1)
PKG_LIBS := $(filter-out -lyaml -lcsv -l:libyaml.a -l:libcsv.a,$(PKG_LIBS)) \
            -Wl,-Bstatic -lyaml -lcsv -Wl,-Bdynamic
endif
LDLIBS   += $(PKG_LIBS) -lm -ldl -lpthread

ifneq ($(SAN),)
override CFLAGS  += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SAN)
endif

# Optional parts, built only where their headers exist.
CUDA_HOME ?= /usr/local/cuda
HAVE_CUPTI := $(shell test -f $(CUDA_HOME)/include/cupti_profiler_host.h && echo 1)

SRC_ALL  := $(wildcard src/util/*.c src/arch/*.c src/expr/*.c src/store/*.c src/analyze/*.c \
              src/render/*.c src/profile/*.c src/profile/backend/*/*.c src/tui/*.c)
MAIN_SRC := src/main.c $(wildcard src/cmd_*.c)
LIB_OBJ  := $(SRC_ALL:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BUILD)/%.o)
# the data files, packed into the library (see the rule of $(BUILD)/gen/ydata.c)
DATA_YAML := $(sort $(wildcard metrics/*.yaml metrics/*/*.yaml panels/*.yaml panels/*/*.yaml \
                               rules/*.yaml))
GEN_OBJ   := $(BUILD)/gen/ydata.o

TEST_SRC := $(wildcard tests/t-*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

CPPFLAGS += -Isrc $(PKG_CFLAGS) -DPRISM_VERSION='"$(VERSION)"' -DPRISM_HAVE_CUPTI=$(if $(HAVE_CUPTI),1,0)
VERSION  := 0.1.0

# GPU_PARTS= leaves the CUPTI collector and the CUDA benchmarks out of `make install`
GPU_PARTS ?= 1

# the man pages and completions as the option table makes them (the rules further down)
DOC_MAN  := $(patsubst man/%.1,$(BUILD)/doc/%.1,$(wildcard man/prism-*.1))
DOC_ALL  := $(DOC_MAN) $(BUILD)/doc/prism.bash $(BUILD)/doc/_prism $(BUILD)/doc/prism.1

# the binary: ./prism, or build-asan/prism for the sanitizer run
PRISM_BIN ?= prism

.PHONY: all deps run test unit cli golden check-data bench install uninstall clean asan tsan docs
all: $(PRISM_BIN) $(if $(HAVE_CUPTI),libprism-cupti.so) $(DOC_ALL)

$(PRISM_BIN): $(MAIN_OBJ) $(BUILD)/libprism.a
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(BUILD)/libprism.a $(LDLIBS)

$(BUILD)/libprism.a: $(LIB_OBJ) $(GEN_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The data files' documents, parsed at build time (src/gen/ypack.c, yamldoc.h): prism takes
# a data file's document from the binary when the file's text is the one packed.
$(BUILD)/gen/ypack: src/gen/ypack.c $(BUILD)/src/arch/yamldoc.o $(BUILD)/src/util/util.o $(BUILD)/src/util/numparse.o $(BUILD)/src/util/alloc.o $(BUILD)/src/util/esc.o
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/gen/ydata.c: $(BUILD)/gen/ypack $(DATA_YAML)
	$(BUILD)/gen/ypack $(DATA_YAML) >$@.tmp && mv $@.tmp $@

# The man pages' option sections and the shell completions, from the option table
# (src/cmd_options.c) at build time: build/doc/ holds what `make install` installs; `make docs`
# writes them back into man/ and completion/ (tests/docs.sh fails while those differ).
$(BUILD)/gen/optdoc: src/gen/optdoc.c $(BUILD)/src/cmd_options.o $(BUILD)/libprism.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/doc/prism-%.1: man/prism-%.1 $(BUILD)/gen/optdoc
	@mkdir -p $(dir $@)
	$(BUILD)/gen/optdoc man $< $* >$@.tmp && mv $@.tmp $@
$(BUILD)/doc/prism.1: man/prism.1
	@mkdir -p $(dir $@)
	cp $< $@
$(BUILD)/doc/prism.bash: completion/prism.bash $(BUILD)/gen/optdoc
	@mkdir -p $(dir $@)
	$(BUILD)/gen/optdoc bash $< >$@.tmp && mv $@.tmp $@
$(BUILD)/doc/_prism: completion/_prism $(BUILD)/gen/optdoc
	@mkdir -p $(dir $@)
	$(BUILD)/gen/optdoc zsh $< >$@.tmp && mv $@.tmp $@
docs: $(DOC_ALL)
	for f in $(DOC_MAN); do cp $$f man/$$(basename $$f); done
	cp $(BUILD)/doc/prism.bash completion/prism.bash
	cp $(BUILD)/doc/_prism completion/_prism

$(BUILD)/gen/ydata.o: $(BUILD)/gen/ydata.c
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(BUILD)/libprism.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libprism.a $(LDLIBS) -lcmocka

# Debian 12 packages for building and testing (idempotent).
DEPS := build-essential pkg-config libyaml-dev libcsv-dev libsqlite3-dev libncurses-dev zlib1g-dev \
        libdrm-dev libhsakmt-dev libcmocka-dev python3 tmux time bc debhelper \
        clang libclang-rt-14-dev valgrind librsvg2-bin
deps:
	@if dpkg -s $(DEPS) >/dev/null 2>&1; then echo "deps: all installed"; \
	else $(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
	     $(if $(filter 0,$(shell id -u)),,sudo) apt-get install -y -qq $(DEPS); fi

# The main job on a bundled sample: a STREAM triad recorded with prism profile on an H100
# (tests/gpu/samples.cu; workloads-sample/compute/H100 holds an FMA and a tensor-core kernel).
SAMPLE ?= workloads-sample/stream/H100/pmc_perf.csv
run: prism
	./prism analyze -p $(dir $(SAMPLE))

unit: $(TEST_BIN)
	@set -e; for t in $(TEST_BIN); do echo "== $$t"; $$t; done

test: $(PRISM_BIN) $(TEST_BIN) $(BUILD)/gen/optdoc
	@PRISM=$(abspath $(PRISM_BIN)) PRISM_DATA_DIR=$(CURDIR) ./tests/run-all.sh $(BUILD)

asan:
	$(MAKE) BUILD=build-asan PRISM_BIN=build-asan/prism SAN=address,undefined OPTFLAGS="-O1 -g" test

# analyze's two threads under ThreadSanitizer: the suite that compares them with one thread
tsan:
	$(MAKE) BUILD=build-tsan PRISM_BIN=build-tsan/prism SAN=thread OPTFLAGS="-O1 -g" build-tsan/prism
	PRISM=$(abspath build-tsan/prism) PRISM_DATA_DIR=$(CURDIR) TSAN_OPTIONS="halt_on_error=1 exitcode=66" ./tests/threads.sh

check-data: prism
	./prism check-data

bench: prism
	./bench/analyze.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/prism \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m755 $(PRISM_BIN) $(DESTDIR)$(PREFIX)/bin/prism
	cp -r metrics panels rules $(DESTDIR)$(PREFIX)/share/prism/
	install -m644 $(BUILD)/doc/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m644 $(BUILD)/doc/prism.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/prism
	install -m644 $(BUILD)/doc/_prism $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_prism
	$(if $(GPU_PARTS),$(if $(HAVE_CUPTI),install -d $(DESTDIR)$(PREFIX)/lib/prism && install -m755 libprism-cupti.so $(DESTDIR)$(PREFIX)/lib/prism/))
	$(if $(GPU_PARTS),$(if $(wildcard prism-roofline-cuda),install -d $(DESTDIR)$(PREFIX)/lib/prism && install -m755 prism-roofline-cuda $(DESTDIR)$(PREFIX)/lib/prism/))

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/prism $(DESTDIR)$(PREFIX)/share/prism $(DESTDIR)$(PREFIX)/lib/prism
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/prism
	rm -f $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_prism

clean:
	rm -rf build build-asan prism libprism-cupti.so

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(GEN_OBJ:.o=.d)

# Optional parts keep their rules beside their sources.
-include roofline/roofline.mk
-include src/collect/cupti/cupti.mk
-include fuzz/fuzz.mk
