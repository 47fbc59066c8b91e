#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Stamp each line QEMU writes to a serial log with the host's clock.

Usage: serial_ts.py SERIAL OUT

Follows SERIAL (polled every 5 ms) and appends "EPOCH LINE" to OUT for each
complete line as it appears; on SIGTERM it takes what is left and exits.
The guest's printk clock cannot time a panic on every kernel (6.1 under TCG
keeps it still while interrupts are off), the host's can.
"""
import signal
import sys
import time

stop = False


def on_term(signum, frame):
    global stop
    stop = True


def main():
    src, dst = sys.argv[1], sys.argv[2]
    signal.signal(signal.SIGTERM, on_term)
    out = open(dst, 'w', buffering=1)
    pos, part = 0, b''
    while True:
        last = stop
        try:
            with open(src, 'rb') as f:
                f.seek(pos)
                data = f.read()
        except FileNotFoundError:
            data = b''
        if data:
            pos += len(data)
            now = time.time()
            part += data
            *lines, part = part.split(b'\n')
            for line in lines:
                text = line.decode('utf-8', 'replace').rstrip('\r')
                out.write(f"{now:.3f} {text}\n")
        if last:
            break
        time.sleep(0.005)
    return 0


if __name__ == '__main__':
    sys.exit(main())
