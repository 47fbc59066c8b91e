# SPDX-License-Identifier: GPL-2.0
#
# netoops: out-of-tree build and test entry points.
#
#   make            build the kernel modules against KDIR (W=1)
#   make tools      build the collector (netoopsd) and the CLI (netoops)
#   make check      every test: check-tools, check-deb, then check-guest
#                   and check-debug side by side
#   make check-tools  unit, golden and fuzz-replay tests (ASan/UBSan)
#   make check-guest  kselftests and crash tests in guests of both Debian
#                   kernels
#   make check-debug  build a lockdep/KASAN/kmemleak kernel from
#                   linux-source-6.12 with the series below applied (cached
#                   in /var/cache/netoops) and run the kselftests, a stress
#                   test and the crash tests on it: no splat allowed
#   make series     the project as a patch series against pristine
#                   linux-source-6.12 in out/series/, each patch through
#                   checkpatch.pl --strict (scripts/make-series.sh)
#   make series-check the series applied patch by patch with git am to a
#                   worktree of pristine linux-source-6.12 (cached in
#                   /var/cache/netoops/series-check), the tree built with
#                   the debug configuration after each patch; a result
#                   line per patch, non-zero exit on any failure
#                   (scripts/series-build-each.sh)
#   make check-flakes boot-patching, kselftests and crash tests FLAKE_ROUNDS
#                   times (10) on each Debian kernel, each round's evidence
#                   kept in out/flakes/<kernel>/round-<i>; a pass-rate table
#                   per test (tests/flakes.sh: FLAKE_TESTS, FLAKE_LOAD); the
#                   results are appended to FLAKE_LEDGER, by default
#                   tests/flakes-ledger.tsv, whose table is
#                   `tests/flakes.sh --table tests/flakes-ledger.tsv`
#   make deb        the netoops-dkms, netoops-client and netoopsd packages in
#                   out/deb/ (scripts/build-deb.sh), lintian's output in
#                   out/deb/lintian.txt
#   make check-deb  the packages installed with apt in a fresh Debian 12 root,
#                   DKMS builds for 6.12 and 6.1, a guest crash stored by
#                   the packaged collector (tests/packaging/run.sh)
#   make demo       boot a guest, crash it, show the crash the collector got
#   make deps       install what a fresh Debian 12 machine lacks (root)
#
# KDIR defaults to the running kernel's build dir, else the newest installed
# Debian linux-headers-*-amd64.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	  $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1))

.PHONY: all modules tools check check-tools check-guest check-debug check-flakes check-deb deb demo deps series series-check clean

all: modules

modules:
	@test -n "$(KDIR)" || { echo "no kernel build dir: install linux-headers or set KDIR (make deps)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

tools:
	$(MAKE) -C tools/netoops

deps:
	scripts/install-deps.sh

# check-guest and check-debug side by side (tests/check-all.sh), after the
# packages' test (check-deb); a failure of either fails check.
check: deps
	$(MAKE) check-tools
	rc=0; tests/packaging/run.sh || rc=1; tests/check-all.sh || rc=1; exit $$rc

check-tools:
	$(MAKE) -C tools/netoops check

check-guest:
	tests/guest/run-all.sh

# Debug kernel (lockdep, KASAN, kmemleak, ...) built from linux-source-6.12
# with the project in the tree; kselftests, stress and crash tests on it.
check-debug:
	tests/debug-kernel/run.sh

deb:
	scripts/build-deb.sh

series:
	scripts/make-series.sh

series-check:
	scripts/series-build-each.sh

check-deb:
	tests/packaging/run.sh

# The guest tests round after round, to find the flaky ones.
check-flakes:
	FLAKE_LEDGER="$${FLAKE_LEDGER-$(CURDIR)/tests/flakes-ledger.tsv}" tests/flakes.sh

demo: deps
	tests/guest/demo.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/netoops clean
