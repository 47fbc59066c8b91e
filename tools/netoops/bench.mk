# SPDX-License-Identifier: GPL-2.0
#
# bench/collector/: the collector's cost targets (bench/collector/run.sh).
#
#   build/bench/dump_bench      inflate + signature CPU per dump

build/bench/collector/%.o: $(TOP)/bench/collector/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests-collector $(CFLAGS_OPT) -MMD -MP -c $< -o $@
build/bench/dump_bench: build/bench/collector/dump_bench.o \
			build/tests-collector/gen_dump.o \
			build/sig/signature.o build/libnetoops.a
	$(CC) $(CFLAGS_OPT) -o $@ $^ -lz -lisal -lpthread

BINS += build/bench/dump_bench
