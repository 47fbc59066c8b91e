# SPDX-License-Identifier: GPL-2.0
#
# `netoops web`, the read-only dashboard (cli/cmd_web.c, libmicrohttpd),
# linked into the CLI here so that collector.mk's lists stay as they are.
#
# Checks: web-http (tests-web/test_http.sh: `netoops web` on an ephemeral
# port over a store filled from the signature corpus, a live storm through
# netoopsd and hostile dumps; every page and API, status codes, the token,
# escaping, API = CLI --json); web-browser (tests-web/test_browser.sh:
# Debian's chromium, headless, loads the pages; the DOM's bucket counts
# against `netoops buckets --json`, a dump's log and gap markers;
# screenshots in out/web/).
# Not in `make check`: bench/web/run.sh (100,000 dumps, each page timed).

build/netoops: build/cli/cmd_web.o
build-san/netoops: build-san/cli/cmd_web.o
COLL_CLI_LIBS += -lmicrohttpd

# Test and benchmark feeder: hostile and gappy dumps to netoopsd, or a
# fleet's history straight into a store.
build/tests-web/web_feed: build/tests-web/web_feed.o \
		build/tests-collector/gen_dump.o \
		$(COLL_STORE:%.c=build/%.o) build/libnetoops.a
	$(CC) $(CFLAGS_OPT) -o $@ $^ $(COLL_LIBS)
build-san/tests-web/web_feed: build-san/tests-web/web_feed.o \
		build-san/tests-collector/gen_dump.o \
		$(COLL_STORE:%.c=build-san/%.o) build-san/libnetoops.a
	$(CC) $(CFLAGS_SAN) -o $@ $^ $(COLL_LIBS)
build/tests-web/%.o: tests-web/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests-collector $(CFLAGS_OPT) -MMD -MP -c $< -o $@
build-san/tests-web/%.o: tests-web/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests-collector $(CFLAGS_SAN) -MMD -MP -c $< -o $@

WEB_DEPS := build-san/netoops build-san/netoopsd build-san/tests-web/web_feed \
	    build/bench/storm_gen

.PHONY: web-http web-browser
web-http: $(WEB_DEPS)
	@echo "== tests-web/test_http.py"
	tests-web/test_http.py

CHECKS += web-http

# Debian's chromium, headless (scripts/install-deps.sh installs it).
web-browser: $(WEB_DEPS)
	@echo "== tests-web/test_browser.py"
	tests-web/test_browser.py

CHECKS += web-browser
