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
