# SPDX-License-Identifier: GPL-2.0
#
# The PostgreSQL store (store/store_pg.c, built into both programs by
# collector.mk), tested against a throwaway PostgreSQL 15 cluster:
# tests-collector/pg_cluster.sh (postgresql-15 from scripts/install-deps.sh,
# a Unix socket in a temporary directory, no TCP, removed at the end).
#
# Check collector-pg, under ASan+UBSan, about 20 s: test_store against
# PostgreSQL (the tests it runs on SQLite, then migrations, open errors,
# lossless logs, globs against SQLite's GLOB, count, prune by size,
# concurrent writers, a deadlock retried, the server stopped and started),
# then the pg_ cases of test_durability: netoopsd on a PostgreSQL store
# whose server stops while dumps arrive, or is down when it starts: every
# dump stored once the server is back.

PG_CLUSTER := tests-collector/pg_cluster.sh

.PHONY: collector-pg
collector-pg: build-san/tests-collector/test_store \
	      build-san/tests-collector/test_durability \
	      build-san/netoopsd build-san/netoops
	$(PG_CLUSTER) run sh -c 'set -e; \
		export NETOOPS_PG_CTL=$(CURDIR)/$(PG_CLUSTER); \
		echo "== $< (PostgreSQL)"; $< "$$NETOOPS_PG"; \
		echo "== build-san/tests-collector/test_durability (PostgreSQL)"; \
		NETOOPSD=build-san/netoopsd NETOOPS_CLI=build-san/netoops \
		build-san/tests-collector/test_durability'

CHECKS += collector-pg

# The storm of issue 15 item 3 (tests-collector/test_merge.c, test_storm):
# 10000 hosts, each dump sent to two of three netoopsd through paths that
# drop a random 5 %, one PostgreSQL; every dump stored once, complete when
# the union of its two copies is.  About 20 s under ASan, the cluster's
# start included; NETOOPS_STORM_N=N for another size.
.PHONY: collector-merge-pg
collector-merge-pg: build-san/tests-collector/test_merge \
		    build-san/netoopsd build-san/netoops
	$(PG_CLUSTER) run sh -c 'set -e; echo "== $< (storm, PostgreSQL)"; \
		NETOOPSD=build-san/netoopsd NETOOPS_CLI=build-san/netoops $<'

CHECKS += collector-merge-pg
