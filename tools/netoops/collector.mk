# SPDX-License-Identifier: GPL-2.0
#
# Collector: the netoopsd daemon, the netoops CLI and the store they share,
# their tests (cmocka, ASan+UBSan) and the storm benchmark programs.
#
#   build/netoopsd  build/netoops        the programs
#   build/bench/storm_gen                benchmark traffic generator
#   build/bench/storm_sink               count-only recvmmsg() sink
#
# Checks: collector-unit (store, record, spool and config suites),
# collector-e2e (netoopsd on loopback fed by real encoded dumps, verified
# through the CLI; a second netoopsd on its port refused; as root, no
# capability left once the sockets are bound), collector-durability (a locked database, a full disk,
# a restart in the middle of dumps: nothing lost).  The last two run
# netoopsd with the helpers of tests-collector/harness.c.  The full-disk cases
# mount a small tmpfs in a mount namespace of their own: as root, or in a
# user namespace; skipped, saying so, without either.

COLL_STORE := store/store.c store/store_sqlite.c store/record.c store/spool.c \
	      sig/signature.c
# The encodings every store shares, and PostgreSQL (pg.mk: its tests).
COLL_STORE += store/store_enc.c store/store_pg.c
# Merging partial copies of a dump (the decoder library's reassembler).
COLL_STORE += store/merge.c
CPPFLAGS += $(shell pkg-config --cflags libpq)
# The daemon's objects go to build/netoopsd-obj/: build/netoopsd is the
# program.
COLL_D := netoopsd-obj/config.c netoopsd-obj/sockets.c netoopsd-obj/worker.c \
	  netoopsd-obj/metrics.c netoopsd-obj/spool.c netoopsd-obj/resume.c \
	  netoopsd-obj/privs.c netoopsd-obj/retain.c netoopsd-obj/archive.c
COLL_CLI := cli/netoops.c cli/cmd_query.c cli/cmd_decode.c cli/output.c \
	    cli/cmd_maint.c
COLL_LIBS := -lsqlite3 -ljansson -lz -lcrypto -lisal -lpthread
COLL_LIBS += -lpq
COLL_D_LIBS := -lmicrohttpd
COLL_CLI_LIBS := -lpcap

build/netoopsd: $(COLL_STORE:%.c=build/%.o) $(COLL_D:%.c=build/%.o) \
		build/netoopsd-obj/main.o build/libnetoops.a
	$(CC) $(CFLAGS_OPT) -o $@ $^ $(COLL_D_LIBS) $(COLL_LIBS)
build/netoops: $(COLL_STORE:%.c=build/%.o) $(COLL_CLI:%.c=build/%.o) \
	       build/libnetoops.a
	$(CC) $(CFLAGS_OPT) -o $@ $^ $(COLL_CLI_LIBS) $(COLL_LIBS)

# Sanitized programs for the end-to-end test.
build-san/netoopsd: $(COLL_STORE:%.c=build-san/%.o) \
		    $(COLL_D:%.c=build-san/%.o) build-san/netoopsd-obj/main.o \
		    build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ $(COLL_D_LIBS) $(COLL_LIBS)
build-san/netoops: $(COLL_STORE:%.c=build-san/%.o) \
		   $(COLL_CLI:%.c=build-san/%.o) build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ $(COLL_CLI_LIBS) $(COLL_LIBS)

build/netoopsd-obj/%.o: netoopsd/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_OPT) -MMD -MP -c $< -o $@
build-san/netoopsd-obj/%.o: netoopsd/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_SAN) -MMD -MP -c $< -o $@

# Benchmark programs live in bench/storm/ at the top of the tree.
build/bench/%.o: $(TOP)/bench/storm/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests-collector $(CFLAGS_OPT) -MMD -MP -c $< -o $@
build/bench/storm_gen: build/bench/storm_gen.o build/tests-collector/gen_dump.o \
		      build/libnetoops.a
	$(CC) $(CFLAGS_OPT) -o $@ $^ -lz -lpthread
build/bench/storm_sink: build/bench/storm_sink.o
	$(CC) $(CFLAGS_OPT) -o $@ $^

BINS += build/netoopsd build/netoops build/bench/storm_gen build/bench/storm_sink

# Tests.
COLL_TESTS := test_store test_record test_spool
COLL_TEST_BINS := $(COLL_TESTS:%=build-san/tests-collector/%)

build-san/tests-collector/test_store: build-san/tests-collector/test_store.o \
		build-san/tests-collector/harness.o \
		build-san/tests-collector/gen_dump.o \
		$(COLL_STORE:%.c=build-san/%.o) build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(COLL_LIBS)
build-san/tests-collector/test_record: build-san/tests-collector/test_record.o \
		build-san/tests-collector/gen_dump.o \
		$(COLL_STORE:%.c=build-san/%.o) build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(COLL_LIBS)
build-san/tests-collector/test_spool: build-san/tests-collector/test_spool.o \
		build-san/tests-collector/gen_dump.o \
		$(COLL_STORE:%.c=build-san/%.o) build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(COLL_LIBS)
build-san/tests-collector/test_durability: \
		build-san/tests-collector/test_durability.o \
		build-san/tests-collector/harness.o \
		build-san/tests-collector/gen_dump.o build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(COLL_LIBS)
build-san/tests-collector/test_e2e: build-san/tests-collector/test_e2e.o \
		build-san/tests-collector/harness.o \
		build-san/tests-collector/gen_dump.o \
		$(COLL_STORE:%.c=build-san/%.o) build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka -lpcap $(COLL_LIBS)

build-san/tests-collector/test_merge: build-san/tests-collector/test_merge.o \
		build-san/tests-collector/harness.o \
		build-san/tests-collector/gen_dump.o build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(COLL_LIBS)

# Two netoopsd (--name A, B) on one SQLite store, each missing a different
# random 5 % of the datagrams: every dump stored once, complete when the
# union of what they got is (store/merge.c).  About 15 s under ASan.
.PHONY: collector-merge
collector-merge: build-san/tests-collector/test_merge build-san/netoopsd \
		 build-san/netoops
	@echo "== $<"
	NETOOPSD=build-san/netoopsd NETOOPS_CLI=build-san/netoops $<

CHECKS += collector-merge

.PHONY: collector-unit collector-e2e
collector-unit: $(COLL_TEST_BINS)
	@set -e; for t in $(COLL_TEST_BINS); do echo "== $$t"; $$t; done

collector-e2e: build-san/tests-collector/test_e2e build-san/netoopsd \
	       build-san/netoops
	@echo "== $<"
	NETOOPSD=build-san/netoopsd NETOOPS_CLI=build-san/netoops $<

# About 50 s: the database stays locked for 20 s on purpose.
.PHONY: collector-durability
collector-durability: build-san/tests-collector/test_durability \
		      build-san/netoopsd build-san/netoops
	@echo "== $<"
	NETOOPSD=build-san/netoopsd NETOOPS_CLI=build-san/netoops $<

CHECKS += collector-unit collector-e2e collector-durability

# netoopsd --archive (whole records after SIGKILL, rotation, SIGHUP) and
# `netoops decode` of what it writes: about 15 s, most of it decoding a
# 66 MiB archive under ASan.
build-san/tests-collector/test_archive: \
		build-san/tests-collector/test_archive.o \
		build-san/tests-collector/harness.o \
		build-san/tests-collector/gen_dump.o build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(COLL_LIBS)

.PHONY: collector-archive
collector-archive: build-san/tests-collector/test_archive \
		   build-san/netoopsd build-san/netoops
	@echo "== $<"
	NETOOPSD=build-san/netoopsd NETOOPS_CLI=build-san/netoops $<

CHECKS += collector-archive

# `netoops buckets` over the signature golden corpus (tests/signatures/).
.PHONY: collector-golden
collector-golden: build-san/netoops
	tests-collector/golden_buckets.sh build-san/netoops

CHECKS += collector-golden
