# SPDX-License-Identifier: GPL-2.0
#
# Wire-format library: decoder, reassembler, inflate helper, the escaping
# of sender text for terminals (netoops_escape.h), hex digits as the
# collector parses them (netoops_hex.h) and the shared encoder
# (fs/pstore/netoops_enc.c), as one archive per build flavour:
#
#   build/libnetoops.a  build-san/libnetoops.a  build-fuzz/libnetoops.a
#
# Other fragments link against these paths (they are literal, so the order
# in which fragments are included does not matter) and add -lz; a program
# that calls netoops_auth_check()/netoops_hmac() adds -lcrypto, one that
# calls netoops_reasm_enable_fec()/netoops_fec_rebuild() adds -lisal
# (NETOOPS_LIBS has all three).
#
# Checks: lib-unit (cmocka suites under ASan+UBSan), lib-uapi (the UAPI
# header compiles with -Wpadded -Werror, offsets pinned), lib-fuzz (corpus
# replay + bounded libFuzzer run of decode + reassembly + inflate).

LIB_SRCS := lib/netoops_decode.c lib/netoops_reasm.c lib/netoops_inflate.c \
	    lib/netoops_auth.c lib/netoops_fec.c lib/netoops_escape.c \
	    lib/netoops_hex.c lib/netoops_pack.c
LIB_ENC := enc/netoops_enc.o

build/libnetoops.a: $(LIB_SRCS:%.c=build/%.o) build/$(LIB_ENC)
	$(AR) rcs $@ $^
build-san/libnetoops.a: $(LIB_SRCS:%.c=build-san/%.o) build-san/$(LIB_ENC)
	$(AR) rcs $@ $^
build-fuzz/libnetoops.a: $(LIB_SRCS:%.c=build-fuzz/%.o) build-fuzz/$(LIB_ENC)
	$(AR) rcs $@ $^

NETOOPS_LIBS := -lz -lcrypto -lisal
VECTORS_DIR := $(TOP)/tests/vectors
LIB_TESTS := test_roundtrip test_corrupt test_reasm test_vectors test_trust \
	     test_escape test_pack
LIB_TEST_BINS := $(LIB_TESTS:%=build-san/tests/%)

build-san/tests/%: build-san/tests/%.o build-san/tests/lib_test_util.o \
		   build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(NETOOPS_LIBS) -lpthread

# Golden-vector generator and annotated hexdump (optimised build).
build/tests/gen_vectors: build/tests/gen_vectors.o build/tests/lib_test_util.o \
			 build/libnetoops.a
	$(CC) $(CFLAGS_OPT) -o $@ $^ $(NETOOPS_LIBS)

BINS += build/libnetoops.a build/tests/gen_vectors

.PHONY: lib-unit lib-uapi lib-fuzz vectors
lib-unit: $(LIB_TEST_BINS)
	@set -e; for t in $(LIB_TEST_BINS); do \
		echo "== $$t"; NETOOPS_VECTORS=$(VECTORS_DIR) $$t; \
	done

# Regenerate tests/vectors/ (only when the format or the inputs change on
# purpose; test_vectors compares against the committed files).
vectors: build/tests/gen_vectors
	build/tests/gen_vectors $(VECTORS_DIR)

lib-uapi:
	@mkdir -p build-san/tests
	$(CC) $(CPPFLAGS) $(CFLAGS_BASE) -Wpadded -Werror -c \
		tests/test_uapi.c -o build-san/tests/test_uapi.o
	$(CC) -I$(TOP)/include/uapi -std=c11 -Wall -Wextra -Wpadded -Werror \
		-pedantic -fsyntax-only -x c $(TOP)/include/uapi/linux/netoops.h
	@echo "lib-uapi: netoops.h compiles with -Wpadded -Werror, layout pinned"

# libFuzzer target: linked with clang's fuzzer runtime.
FUZZ_TIME ?= 60
build-fuzz/fuzz/fuzz_decode: build-fuzz/fuzz/fuzz_decode.o build-fuzz/libnetoops.a
	$(FUZZ_CC) $(CFLAGS_FUZZ) -fsanitize=fuzzer -o $@ $^ $(NETOOPS_LIBS)

lib-fuzz: build-fuzz/fuzz/fuzz_decode
	@rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus
	@cp fuzz/corpus/* $(VECTORS_DIR)/*.bin build-fuzz/corpus/
	@echo "== replay of the committed corpus"
	build-fuzz/fuzz/fuzz_decode -runs=0 fuzz/corpus $(VECTORS_DIR)
	@echo "== fuzzing for $(FUZZ_TIME) s"
	build-fuzz/fuzz/fuzz_decode -max_total_time=$(FUZZ_TIME) -max_len=4096 \
		-timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix=build-fuzz/ build-fuzz/corpus
	@echo "lib-fuzz: no crash in $(FUZZ_TIME) s"

CHECKS += lib-uapi lib-unit lib-fuzz

.SECONDARY: $(LIB_TESTS:%=build-san/tests/%.o) build-san/tests/lib_test_util.o \
	    build/tests/lib_test_util.o build/tests/gen_vectors.o \
	    build-fuzz/fuzz/fuzz_decode.o
