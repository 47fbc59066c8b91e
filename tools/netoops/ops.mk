# SPDX-License-Identifier: GPL-2.0
#
# Operator checks (issue 12): list order, ages and globs, prune,
# watch, --version, import-log of a log already stored, netoopsd's
# retention while it stores, its kernel drop counter over two sockets.
# About 15 s.

build-san/tests-collector/test_cli: build-san/tests-collector/test_cli.o \
		build-san/tests-collector/harness.o \
		build-san/tests-collector/gen_dump.o \
		$(COLL_STORE:%.c=build-san/%.o) build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka $(COLL_LIBS)

.PHONY: collector-cli
collector-cli: build-san/tests-collector/test_cli build-san/netoopsd \
	       build-san/netoops
	@echo "== $<"
	NETOOPSD=build-san/netoopsd NETOOPS_CLI=build-san/netoops $<

CHECKS += collector-cli
