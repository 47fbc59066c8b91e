# SPDX-License-Identifier: GPL-2.0
#
# Crash signatures: the pure library sig/signature.c (also linked into the
# collector by collector.mk), a debugging CLI and the golden-corpus tests.
#
#   build/netoops-sig FILE...       print kind, title, frames, text, hash
#
# Checks: sig-diff (the scan gives exactly what the reference
# implementation tests-sig/signature_ref.c gives, over the corpus, storm
# logs and their mutations); sig-unit (cmocka under ASan+UBSan over
# tests/signatures/: golden
# titles/kinds/frames, one hash per BUCKET, -ENOENT without a crash,
# presentation invariance, bounded random mutations); sig-buckets (the
# corpus imported with `netoops import-log` shows one `netoops buckets`
# entry per BUCKET with the right count); sig-fuzz (libFuzzer for
# SIG_FUZZ_TIME seconds, default 20, seeded with the corpus).

SIG_CORPUS := $(TOP)/tests/signatures

build/netoops-sig: build/sig/signature.o build/sig/netoops-sig.o
	$(CC) $(CFLAGS_OPT) -o $@ $^
build-san/netoops-sig: build-san/sig/signature.o build-san/sig/netoops-sig.o
	$(CC) $(CFLAGS_SAN) -o $@ $^

build-san/tests-sig/test_signature: build-san/tests-sig/test_signature.o \
				    build-san/sig/signature.o \
				    build-san/tests/lib_test_util.o \
				    build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(NETOOPS_LIBS)

build-san/tests-sig/test_sig_diff: build-san/tests-sig/test_sig_diff.o \
				   build-san/tests-sig/signature_ref.o \
				   build-san/sig/signature.o \
				   build-san/tests-collector/gen_dump.o \
				   build-san/tests/lib_test_util.o \
				   build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(NETOOPS_LIBS)
build-san/tests-sig/test_sig_diff.o: CPPFLAGS += -Itests-collector -Itests
build-san/tests-sig/test_signature.o: CPPFLAGS += -Itests

# libFuzzer target, seeded with the golden corpus (copied: libFuzzer
# writes new inputs into its corpus directory).
SIG_FUZZ_TIME ?= 20
build-fuzz/tests-sig/fuzz_signature: build-fuzz/tests-sig/fuzz_signature.o \
				     build-fuzz/sig/signature.o \
				     build-fuzz/tests-sig/signature_ref.o
	$(FUZZ_CC) $(CFLAGS_FUZZ) -fsanitize=fuzzer -o $@ $^

BINS += build/netoops-sig

.PHONY: sig-unit
sig-unit: build-san/tests-sig/test_signature build-san/netoops-sig
	@echo "== $<"
	NETOOPS_SIG_CORPUS=$(SIG_CORPUS) $<
	@echo "== netoops-sig on the corpus"
	@build-san/netoops-sig $(SIG_CORPUS)/sysrq-crash-6.12.txt | \
		grep -qx 'TITLE: Kernel panic: sysrq triggered crash'

.PHONY: sig-diff
sig-diff: build-san/tests-sig/test_sig_diff
	@echo "== $<"
	NETOOPS_SIG_CORPUS=$(SIG_CORPUS) $<

.PHONY: sig-buckets
sig-buckets: build-san/netoops
	tests-sig/test_buckets.sh build-san/netoops $(SIG_CORPUS)

.PHONY: sig-fuzz
sig-fuzz: build-fuzz/tests-sig/fuzz_signature
	@rm -rf build-fuzz/sig-corpus && mkdir -p build-fuzz/sig-corpus
	@cp $(SIG_CORPUS)/*.txt $(SIG_CORPUS)/nocrash/*.txt build-fuzz/sig-corpus/
	$< -max_total_time=$(SIG_FUZZ_TIME) -max_len=16384 -timeout=10 \
		-rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix=build-fuzz/sig- build-fuzz/sig-corpus
	@echo "sig-fuzz: no crash in $(SIG_FUZZ_TIME) s"

CHECKS += sig-diff sig-unit sig-buckets sig-fuzz
