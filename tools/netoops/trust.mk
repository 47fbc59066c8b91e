# SPDX-License-Identifier: GPL-2.0
#
# Hostile-input test of netoopsd as a black box (tests-trust/): a flood of
# garbage, oversized, truncated, corrupt and forged datagrams from 64 source
# ports while a real dump arrives; then, with --key/--require-auth, unsigned,
# wrong-key, unknown-key, altered and replayed datagrams, each counted under
# its reason.  Runs the optimised netoopsd (so that its RSS is the production
# one); the test itself is built with ASan+UBSan.
#
# Check: trust-flood

build-san/tests-trust/test_flood: build-san/tests-trust/test_flood.o \
				  build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka -ljansson $(NETOOPS_LIBS)

.PHONY: trust-flood
trust-flood: build-san/tests-trust/test_flood build/netoopsd build/netoops
	@echo "== $<"
	NETOOPSD=build/netoopsd NETOOPS_CLI=build/netoops $<

CHECKS += trust-flood

.SECONDARY: build-san/tests-trust/test_flood.o
