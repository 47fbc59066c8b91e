#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the kernel lines a guest printed on its serial console with the
log a crash reporter delivered.

Usage: verify_log.py --serial SERIAL --mode panic|oops  RECEIVED...

RECEIVED files hold log text as delivered: netoops dumps (pstore format,
"<N>[ ts] text" lines, maybe a "Panic#1 Part1" header), plain netconsole
text ("[ ts] text") or extended netconsole records ("6,12,345,-;text").

What is compared, and why it is honest:
  * Serial lines are the kernel's console lines, recognised by their
    "[ seconds.micros] " prefix.  The guest's own output goes to a second
    serial port, so nothing else is stripped.
  * The serial log is cut where the dump was taken.  In panic mode that is
    the first line the kernel prints after panic() ran the dumpers
    ("Kernel Offset:", "Rebooting in", "---[ end Kernel panic"); in oops
    mode (machine survives) just after the first "---[ end trace" line.
    Lines after the cut are printed after the dump and cannot be in it.
  * A dump holds the newest kmsg_bytes of the log, so the comparison starts
    at the oldest line received.  Every serial line from there to the cut
    must have been received, byte for byte after the prefix.
  * At least MIN_LINES lines must be compared, and the last serial line
    before the cut must be among them, so an empty or truncated dump fails.
"""
import argparse
import re
import sys

TS = re.compile(r'^\[\s*(\d+)\.(\d{6})\] ?')
PANIC_AFTER = ("Kernel Offset:", "Rebooting in ", "---[ end Kernel panic")
MIN_LINES = 5


def serial_lines(path):
    out = []
    with open(path, 'rb') as f:
        for raw in f:
            line = raw.decode('utf-8', 'replace').rstrip('\r\n')
            m = TS.match(line)
            if m:
                ts = int(m.group(1)) * 1000000 + int(m.group(2))
                out.append((ts, line[m.end():].rstrip()))
    return out


def cut(lines, mode):
    for i, (_, text) in enumerate(lines):
        if mode == 'panic' and text.startswith(PANIC_AFTER):
            return lines[:i], True
        if mode == 'oops' and text.startswith('---[ end trace'):
            return lines[:i + 1], True
    return lines, False


EXT = re.compile(r'^(\d+),(\d+),(\d+),[^;]*;(.*)$')


def received_lines(paths):
    out = set()
    oldest = None
    for p in paths:
        with open(p, 'rb') as f:
            data = f.read().decode('utf-8', 'replace')
        for line in data.split('\n'):
            line = line.rstrip('\r')
            line = re.sub(r'^<\d+>', '', line)
            m = TS.match(line)
            if m:
                ts = int(m.group(1)) * 1000000 + int(m.group(2))
                out.add((ts, line[m.end():].rstrip()))
            else:
                m = EXT.match(line)
                if not m:
                    continue
                ts = int(m.group(3))
                text = m.group(4)
                # extended netconsole escapes newlines as \x0a
                for i, part in enumerate(text.split('\\x0a')):
                    if part or i == 0:
                        out.add((ts, part.rstrip()))
            if m:
                oldest = ts if oldest is None else min(oldest, ts)
    return out, oldest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--serial', required=True)
    ap.add_argument('--mode', choices=('panic', 'oops'), required=True)
    ap.add_argument('received', nargs='+')
    a = ap.parse_args()

    serial, found_cut = cut(serial_lines(a.serial), a.mode)
    if not found_cut:
        print(f"FAIL: no {a.mode} end marker in {a.serial}")
        return 1
    got, oldest = received_lines(a.received)
    if oldest is None:
        print("FAIL: no kernel log line in what was received")
        return 1
    want = [l for l in serial if l[0] >= oldest]
    missing = [l for l in want if l not in got]
    print(f"compared {len(want)} serial lines from t={oldest / 1e6:.6f} "
          f"to the dump point: {len(want) - len(missing)} received, "
          f"{len(missing)} missing")
    for ts, text in missing[:20]:
        print(f"  missing: [{ts / 1e6:12.6f}] {text}")
    if len(want) < MIN_LINES:
        print(f"FAIL: fewer than {MIN_LINES} lines to compare")
        return 1
    if missing:
        print("FAIL: lines printed on the console before the dump were lost")
        return 1
    print(f"last line before the dump: {want[-1][1]!r}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
