# libFuzzer targets (included from the Makefile). Needs clang and its compiler-rt
# (Debian: clang, libclang-rt-14-dev). The library sources they exercise are compiled
# again with clang and coverage instrumentation into build-fuzz/.
#   make fuzz-build               build build-fuzz/fuzz_<target>
#   make fuzz-smoke               each target FUZZ_TIME seconds on its corpus; fails on a crash
#   make fuzz-smoke FUZZ_TIME=600 FUZZ_TARGETS=expr   a longer run of one target
# New inputs go to build-fuzz/corpus-<target>/ (not to the tree); a crash leaves
# build-fuzz/crash-<target>-*: minimise it, add it to fuzz/regress/<target>/, fix it.
FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build-fuzz
FUZZ_TIME    ?= 20
FUZZ_RSS     ?= 2048
FUZZ_TARGETS ?= csv yaml_metrics yaml_panels expr db pcsamp
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -MMD -MP $(FUZZ_SAN)
FUZZ_LIB_SRC := $(wildcard src/util/*.c src/expr/*.c src/arch/*.c src/store/*.c)
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_LIBS    := $(shell pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml) -lcsv -lsqlite3 -lz -lm -lpthread -ldl

.PHONY: fuzz-build fuzz-smoke
fuzz-build: $(FUZZ_BINS)

$(FUZZ_BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJ) $(FUZZ_LIBS)

# -timeout: an input that takes 10 s is a hang; -rss_limit_mb: FUZZ_RSS MB (ASan and
# libFuzzer alone grow to over 1 GB in long runs: raise it for those)
fuzz-smoke: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_BUILD)/corpus-$$t; \
	    echo "== fuzz_$$t for $(FUZZ_TIME) s"; \
	    $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=$(FUZZ_RSS) \
	        -max_len=65536 -print_final_stats=1 \
	        $$(test -f fuzz/$$t.dict && echo -dict=fuzz/$$t.dict) \
	        -artifact_prefix=$(FUZZ_BUILD)/crash-$$t- \
	        $(FUZZ_BUILD)/corpus-$$t fuzz/corpus/$$t $$(test -d fuzz/regress/$$t && echo fuzz/regress/$$t) \
	        2>$(FUZZ_BUILD)/fuzz_$$t.log || { tail -40 $(FUZZ_BUILD)/fuzz_$$t.log; \
	        echo "fuzz_$$t: crash, see $(FUZZ_BUILD)/fuzz_$$t.log"; exit 1; }; \
	    grep -E '^stat::number_of_executed_units|^Done' $(FUZZ_BUILD)/fuzz_$$t.log || true; \
	done

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_BINS:=.d)

clean: fuzz-clean
.PHONY: fuzz-clean
fuzz-clean:
	rm -rf $(FUZZ_BUILD)
