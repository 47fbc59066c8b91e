# SPDX-License-Identifier: GPL-2.0
#
# Hostile-input test of netoopsd as a black box (tests-trust/): a flood of
# garbage, oversized, truncated, corrupt and forged datagrams from 64 source
# ports while a real dump arrives; then, with --key/--require-auth, unsigned,
# wrong-key, unknown-key, altered and replayed datagrams, each counted under
# its reason; the kernel's repeat copies counted as duplicates, not replays;
# unsigned data never replacing or joining a signed dump; and starvation:
# half dumps from 200 addresses of 127.0.1.0/24 at 5000 datagrams/s while
# 50 honest dumps (10 signed, from flooding addresses) must all be stored
# complete and nothing of the flood stored; keys from files (--key-file,
# and netoopsd.conf.example's key-file line through $CREDENTIALS_DIRECTORY
# as LoadCredential= sets it up) verify a signed dump; refused keys (1 or
# 65 bytes, malformed, in a config line, on the command line, in a file)
# exit 2 and never show in the message.  Runs the optimised netoopsd (so
# that its RSS is the production one); the test itself is built with
# ASan+UBSan.
#
# Check: trust-flood (the starvation flood lasts 5 s).
# Not in `make check`: trust-starvation-long, the same flood for 20 s.

build-san/tests-trust/test_flood: build-san/tests-trust/test_flood.o \
				  build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ -lcmocka -ljansson $(NETOOPS_LIBS)

.PHONY: trust-flood
trust-flood: build-san/tests-trust/test_flood build/netoopsd build/netoops
	@echo "== $<"
	NETOOPSD=build/netoopsd NETOOPS_CLI=build/netoops $<

CHECKS += trust-flood

.PHONY: trust-starvation-long
trust-starvation-long: build-san/tests-trust/test_flood build/netoopsd \
		       build/netoops
	@echo "== $< (test_starvation, 20 s)"
	NETOOPSD=build/netoopsd NETOOPS_CLI=build/netoops \
		NETOOPS_FLOOD_SECONDS=20 NETOOPS_TEST_FILTER=test_starvation $<

.SECONDARY: build-san/tests-trust/test_flood.o
