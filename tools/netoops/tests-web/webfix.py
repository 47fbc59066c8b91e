# SPDX-License-Identifier: GPL-2.0
"""Fixture of the dashboard's tests: a store as a fleet fills it, and
`netoops web` over it.

The store gets: the signature corpus (tests/signatures/*.txt) through
`netoops import-log`; a week of history (web_feed --history, straight into
the store); then, live, netoopsd on an ephemeral port receiving a storm
(storm_gen) and web_feed's hostile and gappy dumps.  Every wait is a
bounded poll, never a fixed sleep.
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = os.path.dirname(os.path.dirname(TOOLS))
CLI = os.path.join(TOOLS, os.environ.get("NETOOPS_CLI", "build-san/netoops"))
NETOOPSD = os.path.join(TOOLS, os.environ.get("NETOOPSD",
                                              "build-san/netoopsd"))
FEED = os.path.join(TOOLS, os.environ.get("WEB_FEED",
                                          "build-san/tests-web/web_feed"))
STORM = os.path.join(TOOLS, "build/bench/storm_gen")
CORPUS = os.path.join(TOP, "tests/signatures")
STORM_HOSTS = 200
FEED_DUMPS = 3
HISTORY = 400
TOKEN = "t0k3n-for-the-web-test.0123456789"


def wait_for(what, cond, limit=60.0):
    """Polls cond() until true; fails after limit seconds."""
    end = time.monotonic() + limit
    delay = 0.01
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > end:
            raise RuntimeError("timeout waiting for " + what)
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def read_kv(path):
    try:
        with open(path) as f:
            return dict(l.strip().split("=", 1) for l in f if "=" in l)
    except FileNotFoundError:
        return None


def read_kv_text(text):
    return dict(l.strip().split("=", 1) for l in text.splitlines()
                if "=" in l)


def metric(mport, name):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % mport,
                                timeout=10) as r:
        for line in r.read().decode().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == name:
                return float(parts[1])
    return 0.0


def cli(db, *args):
    """The CLI's standard output (bytes); fails on a non-zero exit."""
    return subprocess.run([CLI, "--db", db] + list(args), check=True,
                          stdout=subprocess.PIPE, timeout=120).stdout


class Fleet:
    """A temporary directory with the store, netoopsd and netoops web."""

    def __init__(self, tag):
        self.dir = tempfile.mkdtemp(prefix="netoops-%s-" % tag)
        self.db = os.path.join(self.dir, "web.db")
        self.procs = []
        self.web = None
        self.port = None

    def spawn(self, argv, log):
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                             stderr=open(os.path.join(self.dir, log), "w"))
        self.procs.append(p)
        return p

    def fill(self):
        for f in sorted(glob.glob(os.path.join(CORPUS, "*.txt"))):
            base = os.path.basename(f)[:-4]
            kernel = {"6.1": "6.1.0-57-amd64",
                      "6.12": "6.12.118+deb12-amd64"}.get(
                          base.rsplit("-", 1)[-1], "unknown")
            cli(self.db, "import-log", "--host", base, "--kernel", kernel, f)
        subprocess.run([FEED, "--history", self.db, str(HISTORY)],
                       check=True, timeout=300)
        ready = os.path.join(self.dir, "d.ready")
        # A big socket buffer: a busy host may leave netoopsd (under ASan)
        # off the CPU for a while during the storm.
        d = self.spawn([NETOOPSD, "--listen", "127.0.0.1", "--port", "0",
                        "--db", self.db, "--ready-file", ready,
                        "--metrics-listen", "127.0.0.1:0",
                        "--rcvbuf", str(64 << 20),
                        "--timeout-ms", "1500"], "netoopsd.log")
        kv = wait_for("netoopsd ready", lambda: read_kv(ready))
        port, mport = int(kv["port"]), int(kv["metrics_port"])
        m = lambda name: metric(mport, name)
        # The dumps the checks need first, alone: none may be lost.
        subprocess.run([FEED, "--port", str(port)], check=True, timeout=60)
        wait_for("netoopsd to store web_feed's %d dumps" % FEED_DUMPS,
                 lambda: m("netoops_dumps_stored_total") >= FEED_DUMPS,
                 limit=120)
        before = m("netoops_packets_received_total")
        out = subprocess.run([STORM, "--port", str(port), "--hosts",
                              str(STORM_HOSTS), "--size", "16384",
                              "--window", "16", "--rate", "4000"],
                             check=True, timeout=120, stdout=subprocess.PIPE)
        sent = int(read_kv_text(out.stdout.decode())["packets"])
        want = STORM_HOSTS + FEED_DUMPS

        # Every dump stored; or, if the kernel dropped datagrams, every
        # datagram accounted for and nothing left open or queued.
        def settled():
            if m("netoops_dumps_stored_total") >= want:
                return True
            return (m("netoops_packets_received_total") +
                    m("netoops_kernel_drops_total") >= before + sent and
                    m("netoops_open_dumps") == 0 and
                    m("netoops_dumps_pending") == 0 and
                    m("netoops_store_queue") == 0)
        wait_for("netoopsd to store the storm", settled, limit=180)
        self.stored_live = metric(mport, "netoops_dumps_stored_total")
        d.send_signal(signal.SIGTERM)
        rc = d.wait(timeout=60)
        self.procs.remove(d)
        if rc != 0:
            raise RuntimeError("netoopsd exited %d" % rc)

    def start_web(self, token=True):
        ready = os.path.join(self.dir, "web.ready")
        argv = [CLI, "--db", self.db, "web", "--listen", "127.0.0.1:0",
                "--ready-file", ready]
        if token:
            tf = os.path.join(self.dir, "token")
            with open(tf, "w") as f:
                f.write(TOKEN + "\n")
            argv += ["--token-file", tf]
        self.web = self.spawn(argv, "web.log")
        kv = wait_for("netoops web ready", lambda: read_kv(ready) or
                      (self.web.poll() is not None and {"dead": 1}))
        if "dead" in kv:
            raise RuntimeError("netoops web exited: " + self.log("web.log"))
        self.port = int(kv["port"])
        return self.port

    def stop_web(self):
        """SIGTERM; its exit status and standard error (ASan's reports)."""
        self.web.send_signal(signal.SIGTERM)
        rc = self.web.wait(timeout=60)
        self.procs.remove(self.web)
        return rc, self.log("web.log")

    def log(self, name):
        with open(os.path.join(self.dir, name), errors="replace") as f:
            return f.read()

    def close(self, ok):
        for p in self.procs:
            p.kill()
            p.wait()
        if ok:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            print("kept " + self.dir, file=sys.stderr)


class Checks:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def __call__(self, cond, what, detail=""):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s %s" % (what, detail), flush=True)
        return cond

    def end(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed,
                                            self.failed))
        return 0 if self.failed == 0 else 1


def buckets(db):
    return json.loads(cli(db, "buckets", "--json"))
