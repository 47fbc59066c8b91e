#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the dumps netoopsd stored for one guest run.

Usage: verify_dump.py --results RESULTS --serial SERIAL --mode panic|oops
                      [--dumps N] [--reason panic|oops] [--regs oops]
                      [--partial REASON] [--pstore] DUMP.json...

DUMP.json: `netoops --json show ID` of every dump stored during the run.
RESULTS: the guest's own output, with "ID key=value" lines saying what it
set (release, hostname, boot_id, user=key=value) and "PSTORE name" lines.

Checks, each printed with its evidence:
  * the number of dumps (exactly N with --dumps, else at least one);
  * every dump complete, no missing bytes; with --partial REASON, every
    dump of that reason incomplete instead (cut short on purpose) and left
    out of the log check;
  * release, hostname, boot id and the user field equal what the guest set;
  * --reason: some dump has that reason;
  * the log: every console line from the oldest one received up to the
    dump point is in the stored logs (verify_log.py's rules);
  * --regs oops: the registers sent are the oopsing context's, i.e. equal
    to the register dump the oops printed on the console;
  * --pstore: the guest lived on and listed a record in /sys/fs/pstore.
"""
import argparse
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_log  # noqa: E402

REG = re.compile(r'\b(R[A-Z0-9]{1,2}|EFLAGS): ?([0-9a-f]{8,16})\b')


def identity(path):
    ident, pstore = {}, []
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if line.startswith('ID '):
                k, _, v = line[3:].partition('=')
                ident[k] = v
            elif line.startswith('PSTORE '):
                pstore.append(line[7:])
    return ident, pstore


def oops_regs(serial):
    """Registers of the first oops (or BUG) register dump on the console:
    the first kernel-mode block ("RIP: 0010:") after the first "Oops:"
    line, or without one the first kernel-mode block.  A KASAN report
    comes before the oops and carries blocks of its own (the syscall's
    user-mode registers, or in softirq context the interrupted task's),
    which are not the oops's."""
    lines = []
    with open(serial, errors='replace') as f:
        for line in f:
            text = line.rstrip('\r\n')
            lines.append(re.sub(r'^\[\s*\d+\.\d+\] ', '', text))
    start = next((i for i, t in enumerate(lines) if t.startswith('Oops: ')),
                 0)
    regs, started = {}, False
    for text in lines[start:]:
        if not started:
            started = text.startswith('RIP: 0010:')
            continue
        found = REG.findall(text)
        if not found:
            if regs:
                break
            continue
        for name, val in found:
            name = name.lower()
            name = re.sub(r'^r0(\d)$', r'r\1', name)
            regs.setdefault(name, int(val, 16))
    return regs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--results', required=True)
    ap.add_argument('--serial', required=True)
    ap.add_argument('--mode', choices=('panic', 'oops'), required=True)
    ap.add_argument('--dumps', type=int)
    ap.add_argument('--reason')
    ap.add_argument('--regs')
    ap.add_argument('--partial')
    ap.add_argument('--pstore', action='store_true')
    ap.add_argument('dumps_json', nargs='*')
    a = ap.parse_args()

    fails = []
    dumps = []
    for p in a.dumps_json:
        with open(p) as f:
            d = json.load(f)
        dumps.append(d[0] if isinstance(d, list) else d)
    ident, pstore = identity(a.results)

    n = len(dumps)
    print(f"dumps stored: {n} "
          f"({', '.join(str(d.get('reason')) for d in dumps)})")
    if a.dumps is not None and n != a.dumps:
        fails.append(f"expected exactly {a.dumps} dump(s), got {n}")
    if n == 0:
        fails.append("no dump stored")

    for d in dumps:
        tag = f"dump {d.get('id')} ({d.get('reason')})"
        print(f"{tag}: complete={d.get('complete')} packets="
              f"{d.get('pkt_received')}/{d.get('pkt_count')} "
              f"missing_bytes={d.get('missing_bytes')} log_len="
              f"{d.get('log_len')} title={d.get('title')!r}")
        whole = d.get('complete') is True and not d.get('missing_bytes')
        if a.partial and d.get('reason') == a.partial:
            if whole:
                fails.append(f"{tag} complete, but it was to be cut short")
        elif not whole:
            fails.append(f"{tag} incomplete")
        want = {
            'release': ident.get('release'),
            'hostname': ident.get('hostname'),
            'boot_id': (ident.get('boot_id') or '').replace('-', '').lower(),
        }
        for k, v in want.items():
            if not v:
                fails.append(f"guest did not report its {k}")
            elif d.get(k) != v:
                fails.append(f"{tag}: {k} {d.get(k)!r} != guest's {v!r}")
        uk, _, uv = (ident.get('user') or '').partition('=')
        got_u = (d.get('user') or {}).get(uk)
        if not uk or got_u != uv:
            fails.append(f"{tag}: user field {uk}={got_u!r}, guest set {uv!r}")
    if not fails and dumps:
        print("identity: release, hostname, boot_id, user field match "
              f"({ident.get('hostname')}, {ident.get('boot_id')})")

    if a.reason and not any(d.get('reason') == a.reason for d in dumps):
        fails.append(f"no dump with reason {a.reason}")

    if dumps:
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for d in dumps:
                if a.partial and d.get('reason') == a.partial:
                    continue
                p = os.path.join(tmp, f"{d.get('id')}.log")
                with open(p, 'w') as f:
                    f.write(d.get('log') or '')
                paths.append(p)
            sys.argv = ['verify_log', '--serial', a.serial, '--mode', a.mode]
            sys.argv += paths
            sys.stdout.flush()
            if not paths:
                fails.append("no complete dump to check the log against")
            elif verify_log.main() != 0:
                fails.append("log check failed")

    if a.regs == 'oops':
        want = oops_regs(a.serial)
        got = {}
        # the oops dump's registers when there is one (a later panic dump
        # may carry the dumper's context)
        order = sorted(dumps, key=lambda d: d.get('reason') != 'oops')
        for d in order:
            if d.get('regs'):
                got = {k.lower(): int(v, 16) for k, v in d['regs'].items()}
                break
        common = sorted(set(want) & set(got))
        bad = [k for k in common if want[k] != got[k]]
        print(f"registers: {len(common)} compared with the oops on the "
              f"console, {len(bad)} differ (rip={hex(got.get('rip', 0))})")
        if len(common) < 10:
            fails.append(f"only {len(common)} registers to compare "
                         f"(sent: {sorted(got)}; console: {sorted(want)})")
        for k in bad:
            fails.append(f"register {k}: sent {got[k]:#x}, "
                         f"oops printed {want[k]:#x}")

    if a.pstore:
        print(f"/sys/fs/pstore after the oops: {pstore}")
        if not pstore:
            fails.append("no record in /sys/fs/pstore after the oops")

    for f in fails:
        print(f"FAIL: {f}")
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
