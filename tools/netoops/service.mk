# SPDX-License-Identifier: GPL-2.0
#
# The systemd unit (netoopsd.service) as a sandbox: `systemd-analyze
# security --offline=true` rates its exposure from 0.0 (locked down) to
# 10.0; service-security fails above SERVICE_EXPOSURE_MAX.  systemd 252's
# offline mode reads the unit file alone (the ExecStart program need not
# exist).  systemd-analyze comes with the systemd package
# (scripts/install-deps.sh installs it).
#
# service-syscalls (tests-collector/service_syscalls.sh): netoopsd, run as
# the unit runs it (not root, CAP_NET_ADMIN ambient) under strace -f while
# it stores the golden vectors' dumps, makes no system call outside the
# unit's SystemCallFilter= (which would fail with EPERM).  Needs root,
# strace and setpriv; skipped, saying so, without them.
#
# Checks: service-security, service-syscalls.

SERVICE_EXPOSURE_MAX := 2.0

.PHONY: service-security
service-security: netoopsd.service
	@command -v systemd-analyze >/dev/null 2>&1 || { \
		echo "service-security: systemd-analyze not found: install" \
		     "the systemd package (scripts/install-deps.sh)" >&2; \
		exit 1; }
	@mkdir -p build
	@systemd-analyze security --offline=true \
		--threshold=$(subst .,,$(SERVICE_EXPOSURE_MAX)) $< \
		>build/service-security.txt 2>&1; rc=$$?; \
	line=$$(grep 'Overall exposure level' build/service-security.txt); \
	if [ $$rc != 0 ] || [ -z "$$line" ]; then \
		grep '✗' build/service-security.txt; \
		echo "service-security: $${line:-no rating} (rc $$rc):" \
		     "above $(SERVICE_EXPOSURE_MAX)" >&2; \
		exit 1; \
	fi; \
	echo "service-security: $$line (at most $(SERVICE_EXPOSURE_MAX))"

CHECKS += service-security

.PHONY: service-syscalls
service-syscalls: build/netoopsd netoopsd.service
	tests-collector/service_syscalls.sh build/netoopsd netoopsd.service \
		$(VECTORS_DIR)

CHECKS += service-syscalls
