# SPDX-License-Identifier: GPL-2.0
#
# Loss benchmark (bench/loss/): a lossy UDP relay and the runner that sends
# dumps through it with no redundancy, repeated three times, and with FEC.
#
#   build/bench-loss/loss_relay   build/bench-loss/loss_bench
#
# Run: bench/loss/run.sh (writes the table to stdout).

build/bench-loss/%.o: $(TOP)/bench/loss/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_OPT) -MMD -MP -c $< -o $@

build/bench-loss/loss_relay: build/bench-loss/loss_relay.o
	$(CC) $(CFLAGS_OPT) -o $@ $^

build/bench-loss/loss_bench: build/bench-loss/loss_bench.o build/libnetoops.a
	$(CC) $(CFLAGS_OPT) -o $@ $^ $(NETOOPS_LIBS) -lm

BINS += build/bench-loss/loss_relay build/bench-loss/loss_bench

.SECONDARY: build/bench-loss/loss_relay.o build/bench-loss/loss_bench.o
