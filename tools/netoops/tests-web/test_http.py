#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""web-http: `netoops web` over HTTP, against a store that the corpus, a
week of history and a live storm through netoopsd filled (webfix.py).

Checks: the token (none, wrong, Bearer, ?token= once then the cookie it
sets, HttpOnly and SameSite=Strict); the security headers on every
answer; every page and API answering 200, bad queries 400, unknown things
404, other methods 405; hostile sender text (<script>, quotes, &, invalid
UTF-8 in hostname, release, user field and log) coming out escaped, and no
"<script" in any page; gap markers in the dumps that lost a datagram;
no link or resource off the site; every /api/ answer byte for byte the
CLI's --json for the same query;
the server leaving no leak or sanitizer report when stopped.
"""
import http.client
import json
import re
import sys
import time
import urllib.parse

import webfix
from webfix import cli

check = webfix.Checks("web-http")


class Web:
    def __init__(self, port):
        self.port = port

    def get(self, path, headers=None, method="GET", auth=True):
        h = dict(headers or {})
        if auth and "Authorization" not in h and "Cookie" not in h:
            h["Authorization"] = "Bearer " + webfix.TOKEN
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        c.request(method, path, headers=h)
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, r, body


def security_headers(r, path):
    csp = r.getheader("Content-Security-Policy") or ""
    check("default-src 'none'" in csp and "script" not in csp,
          "CSP forbids scripts", path + ": " + csp)
    check(r.getheader("X-Content-Type-Options") == "nosniff",
          "nosniff", path)


# Bidirectional controls and invisible characters: never raw in an answer.
HIDDEN = re.compile("[\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060"
                    "\u2066-\u2069\ufeff\u0080-\u009f]")


def page(w, path, status=200):
    st, r, body = w.get(path)
    check(st == status, "status of " + path, "%d, want %d" % (st, status))
    security_headers(r, path)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        check(False, "UTF-8 page", path)
        return ""
    m = HIDDEN.search(text)
    check(not m, "no bidi control or invisible character raw in " + path,
          repr(text[max(0, m.start() - 20):m.end() + 20]) if m else "")
    if r.getheader("Content-Type", "").startswith("text/html"):
        check("<script" not in text.lower(), "no <script in " + path)
        ext = re.findall(r'(?:src|href|action)="(?:[a-z]+:)?//[^"]*"', text)
        check(not ext, "no external resource in " + path, str(ext[:3]))
    return text


def api_equals_cli(w, db, path, args):
    st, r, body = w.get(path)
    want = cli(db, *args)
    check(st == 200 and r.getheader("Content-Type") == "application/json",
          "API " + path, str(st))
    check(body == want, "API %s == netoops %s" % (path, " ".join(args)),
          "\n%s\n---\n%s" % (body[:300], want[:300]))


def test_token(w):
    st, r, _ = w.get("/", auth=False)
    check(st == 401, "no token: 401", str(st))
    check("Bearer" in (r.getheader("WWW-Authenticate") or ""),
          "401 says Bearer")
    for p in ("/api/buckets", "/dump/1", "/style.css", "/nope"):
        check(w.get(p, auth=False)[0] == 401, "no token: 401 on " + p)
    check(w.get("/", {"Authorization": "Bearer wrong"})[0] == 401,
          "wrong Bearer: 401")
    check(w.get("/", {"Authorization": "Bearer " + webfix.TOKEN[:-1]})[0]
          == 401, "Bearer prefix of the token: 401")
    check(w.get("/?token=wrong", auth=False)[0] == 401, "wrong ?token: 401")
    check(w.get("/", {"Cookie": "netoops_token=wrong"})[0] == 401,
          "wrong cookie: 401")
    check(w.get("/")[0] == 200, "Bearer: 200")
    st, r, _ = w.get("/dumps?host=node-0*&token=%s&limit=5" % webfix.TOKEN,
                     auth=False)
    check(st == 303, "?token: 303", str(st))
    loc = r.getheader("Location") or ""
    check(loc.startswith("/dumps?") and "token" not in loc and
          "limit=5" in loc, "redirect keeps the query, drops the token", loc)
    cookie = r.getheader("Set-Cookie") or ""
    check("HttpOnly" in cookie and "SameSite=Strict" in cookie,
          "cookie HttpOnly SameSite=Strict", cookie)
    pair = cookie.split(";")[0]
    check(pair == "netoops_token=" + webfix.TOKEN, "cookie holds the token")
    st, _, body = w.get(loc, {"Cookie": pair})
    check(st == 200 and b"node-0" in body, "the cookie lets in", str(st))
    st, r, _ = w.get("//evil.example/?token=" + webfix.TOKEN, auth=False)
    check((r.getheader("Location") or "").startswith("/evil.example"),
          "no redirect off the site", r.getheader("Location") or "")


def test_pages(w, db, bks, dumps):
    for p in ("/", "/?range=24h", "/?range=30d", "/buckets", "/dumps",
              "/kernels", "/hosts", "/dumps?limit=1000",
              "/dumps?complete=0", "/dumps?authenticated=0&reason=oops",
              "/dumps?since=-1d&until=2100-01-01", "/dumps?kernel=6.1*",
              "/hosts?kernel=6.12*", "/buckets?host=node-*",
              "/style.css"):
        page(w, p)
    for b in bks:
        if b["bucket"] != "-":
            text = page(w, "/bucket/" + urllib.parse.quote(b["bucket"]))
            check(">%d<" % b["count"] in text, "bucket page count",
                  b["bucket"])
    for d in dumps:
        page(w, "/dump/%d" % d["id"])
    for p in ("/dump/99999999", "/dump/abc", "/bucket/zzzz", "/nope",
              "/api/nope", "/api/dump/99999999"):
        page(w, p, 404)
    for p in ("/dumps?limit=0", "/dumps?since=yesterday", "/dumps?reason=x",
              "/dumps?complete=2", "/dumps?bogus=1", "/?range=1y",
              "/?host=x", "/api/count?by=week", "/api/count?step=0",
              "/api/buckets?limit=-1"):
        page(w, p, 400)
    for m in ("POST", "PUT", "DELETE"):
        st, r, _ = w.get("/", method=m)
        check(st == 405, m + ": 405", str(st))
        # RFC 9110 15.5.6: a 405 names the methods that are allowed
        check(r.getheader("Allow") == "GET, HEAD", m + ": 405 with Allow",
              str(r.getheader("Allow")))
    # the overview's totals are the store's
    text = page(w, "/")
    stats = json.loads(cli(db, "stats", "--json"))
    m = re.search(r"<b>(\d+)</b> dumps from <b>(\d+)</b> hosts in <b>(\d+)"
                  r"</b> buckets", text)
    check(m and [int(x) for x in m.groups()] ==
          [stats["dumps"], stats["hosts"], stats["buckets"] +
           any(b["bucket"] == "-" for b in bks)],
          "overview totals", str(m and m.groups()) + " " + str(stats))
    check("<svg" in text and "class=\"bar\"" in text, "overview plot")
    check("id=\"trend\"" in text, "overview trend table")


def test_escaping(w, dumps):
    evil = [d for d in dumps if d["host"] and "<script>" in d["host"]]
    if not check(len(evil) == 1, "hostile dump stored", str(len(evil))):
        return
    d = evil[0]
    text = page(w, "/dump/%d" % d["id"])
    for want in ("&lt;script&gt;alert(&quot;host&quot;)&lt;/script&gt;"
                 "&amp;&#39;\\xff-evil",
                 "6.12.0-&lt;b&gt;bold&lt;/b&gt;&amp;&quot;q&quot;",
                 "&lt;script&gt;alert(&#39;user&#39;)&lt;/script&gt; &amp;"
                 " &quot;q&quot; ",
                 "&lt;script&gt;alert(&quot;log&quot;)&lt;/script&gt; &amp;"
                 " &#39;quotes&#39;",
                 "bad utf-8: \\xff\\xfe\\xc3 end",
                 "bidi: adm\\u202enimda bom\\ufeff shy\\u00ad"
                 " lrm\\u200e alm\\u061c",
                 " \\u2066rli\\u2069 zw\\u200bsp",
                 "&lt;/pre&gt;&lt;img src=x onerror=alert(1)&gt;"):
        check(want in text, "escaped on the dump page", want)
    check("<b>bold" not in text and "<img" not in text, "no raw markup")
    # JSON: the same characters as JSON escapes, the values exact
    text = page(w, "/api/dump/%d" % d["id"])
    check("adm\\u202enimda" in text and "rli\\u2069" in text,
          "hidden characters as \\uXXXX in the API's JSON")
    j = json.loads(text)
    check("bidi: adm\u202enimda bom\ufeff" in j["log"],
          "the API's log holds the characters themselves")
    check(j["user"]["note"].endswith("\"q\" ?? \u2066rli\u2069 zw\u200bsp"),
          "a user field: '?' for each bad byte, the rest kept",
          repr(j["user"]["note"]))
    for p, want in (("/hosts", "&lt;script&gt;"),
                    ("/kernels", "&lt;b&gt;bold"),
                    ("/dumps?limit=1000", "&lt;script&gt;"),
                    ("/buckets", "&lt;b&gt;bold")):
        check(want in page(w, p), "hostile text shown escaped on " + p)
    # a link to the hostile host's dumps finds it (glob-literal, encoded)
    text = page(w, "/hosts")
    m = re.search(r'href="(/dumps\?host=[^"]*)">&lt;script', text)
    if check(m, "link from /hosts to the hostile host"):
        text = page(w, m.group(1).replace("&amp;", "&"))
        check("/dump/%d\"" % d["id"] in text, "that link finds the dump")


def test_gaps(w, dumps):
    for host, marker in (("gap-plain", r"\[\.\.\. \d+ bytes missing \.\.\.\]"),
                         ("gap-deflate", r"\[\.\.\. (\d+ bytes|rest of the"
                          r" log) missing \.\.\.\]")):
        ds = [d for d in dumps if d["host"] == host]
        if not check(len(ds) == 1 and not ds[0]["complete"] and ds[0]["gaps"],
                     "partial dump with a gap from " + host):
            continue
        text = page(w, "/dump/%d" % ds[0]["id"])
        check(re.search(r'<span class="gap">' + marker + "</span>", text),
              "gap marker shown and marked", host)
        check(ds[0]["log"] and re.search(marker, ds[0]["log"]),
              "same marker in the CLI's log", host)


def test_usage(fleet):
    """Bad usage exits 2 before serving; HEAD gets headers only."""
    import os
    import subprocess
    bad = os.path.join(fleet.dir, "short-token")
    with open(bad, "w") as f:
        f.write("short\n")
    for args in (["--listen", "127.0.0.1:65536"], ["--listen", "localhost:1"],
                 ["--listen", "127.0.0.1"], ["--token-file", bad],
                 ["--bogus"]):
        r = subprocess.run([webfix.CLI, "--db", fleet.db, "web"] + args,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
        check(r.returncode == 2, "netoops web %s: exit 2" % " ".join(args),
              str(r.returncode))


def test_links(w, bks):
    """A bucket page's host links list that host's dumps of the bucket."""
    b = [x for x in bks if x["bucket"] != "-"][0]["bucket"]
    text = page(w, "/bucket/" + b)
    m = re.search(r'href="(/dumps\?host=[^"]*&amp;bucket=%s)"' % b, text)
    if check(m, "host link keeps the bucket"):
        text = page(w, m.group(1).replace("&amp;", "&"))
        n = len(re.findall(r'<a href="/dump/\d+">', text))
        check(n > 0 and text.count('href="/bucket/%s"' % b) == n,
              "only that bucket's dumps", str(n))
    st, r, body = w.get("/dumps", method="HEAD")
    check(st == 200 and body == b"" and
          r.getheader("Content-Security-Policy"), "HEAD: headers only")


def test_api(w, db, bks, dumps):
    api_equals_cli(w, db, "/api/buckets", ["buckets", "--json"])
    api_equals_cli(w, db, "/api/buckets?host=node-1*&complete=1",
                   ["buckets", "--json", "--host", "node-1*", "--complete"])
    api_equals_cli(w, db, "/api/dumps?limit=40",
                   ["list", "--json", "--limit", "40"])
    # /api/dumps holds at most 1000 dumps (test_big_store): the CLI with
    # the same --limit
    api_equals_cli(w, db, "/api/dumps?no_log=1",
                   ["list", "--json", "--no-log", "--limit", "1000"])
    # absolute times: "-3d" read a second apart could differ by a dump
    now = int(time.time())
    since, until = str(now - 3 * 86400), str(now - 86400)
    api_equals_cli(w, db, "/api/dumps?since=%s&until=%s&no_log=1"
                   "&authenticated=0" % (since, until),
                   ["list", "--json", "--no-log", "--since", since,
                    "--until", until, "--unauthenticated", "--limit",
                    "1000"])
    b = [x for x in bks if x["bucket"] != "-"][0]["bucket"]
    api_equals_cli(w, db, "/api/dumps?bucket=%s&reason=oops" % b[:10],
                   ["list", "--json", "--bucket", b[:10], "--reason", "oops",
                    "--limit", "1000"])
    api_equals_cli(w, db, "/api/dumps?complete=0",
                   ["list", "--json", "--partial", "--limit", "1000"])
    api_equals_cli(w, db, "/api/stats", ["stats", "--json"])
    api_equals_cli(w, db, "/api/hosts", ["count", "--json", "--by", "host"])
    api_equals_cli(w, db, "/api/kernels",
                   ["count", "--json", "--by", "kernel"])
    api_equals_cli(w, db, "/api/count?by=time&step=3600&kernel=6.1*",
                   ["count", "--json", "--by", "time", "--step", "3600",
                    "--kernel", "6.1*"])
    api_equals_cli(w, db, "/api/count?by=host&limit=5",
                   ["count", "--json", "--limit", "5"])
    for d in dumps[:25] + [x for x in dumps if x["host"] and
                           ("<" in x["host"] or x["host"].startswith("gap"))]:
        api_equals_cli(w, db, "/api/dump/%d" % d["id"],
                       ["show", str(d["id"]), "--json"])


def test_glob_cap(w):
    """A host, kernel or bucket pattern over 256 bytes is 400: 15,000 '?'
    kept PostgreSQL busy for 12 s, and the one thread with it; so is a
    host or kernel pattern of more than 32 wildcards and [...] sets."""
    for p in ("/dumps?host=" + "?" * 257, "/api/dumps?kernel=" + "*" * 257,
              "/buckets?bucket=" + "a" * 257, "/hosts?host=" + "?*" * 129,
              "/api/count?by=host&host=" + "?" * 15000):
        st, _, body = w.get(p)
        check(st == 400 and b"glob too long" in body,
              "long glob: 400 glob too long", "%s...: %d %s"
              % (p[:24], st, body[:80]))
    page(w, "/dumps?host=" + "?" * 32 + "x" * 224)
    page(w, "/buckets?bucket=" + "?" * 256)
    # 200 '*' or 33 wildcards and sets: 400 too, as JSON on the API
    for p in ("/dumps?host=" + "*" * 200, "/hosts?kernel=" + "?" * 33,
              "/api/dumps?host=" + "*" * 33,
              "/api/count?by=time&kernel=" + "%5Ba%5D" * 33,
              "/api/buckets?host=" + "*?" * 100):
        st, r, body = w.get(p)
        ok = st == 400 and b"glob too complex (at most 32 wildcards" in body
        if p.startswith("/api/"):
            ok = ok and r.getheader("Content-Type") == "application/json"
            try:
                j = json.loads(body)
            except ValueError:
                j = {}
            ok = ok and j.get("error", "").startswith("glob too complex") \
                and j.get("detail") in ("host", "kernel")
        check(ok, "many wildcards: 400 glob too complex", "%s...: %d %s"
              % (p[:28], st, body[:120]))
    text = page(w, "/api/dumps?no_log=1&host=" + "*" * 31 + "gap-plain")
    check(len(json.loads(text or "[]")) >= 1, "32 wildcards still match")


def test_bounds(w, db):
    """Times and limits out of range are 400, not wrapped products (UBSan
    aborted, a release build listed everything) nor 0 ("no bound")."""
    for p in ("/dumps?since=9223372036854776",
              "/dumps?since=-106751991167301d",
              "/api/dumps?until=9223372036854775807",
              "/api/dumps?until=1970-01-01", "/api/count?by=time&until=0",
              "/dumps?since=1969-12-31", "/dumps?limit=99999999999999999999",
              "/api/buckets?limit=9223372036854775808",
              "/api/dumps?limit=1001", "/dumps?limit=5000"):
        page(w, p, 400)
    st, _, body = w.get("/api/dumps?since=9223372036854776")
    check(b"out of range" in body, "400 says out of range", str(body[:100]))
    # the earliest bound taken is a real bound
    api_equals_cli(w, db, "/api/dumps?until=1970-01-01+00:00:02&no_log=1",
                   ["list", "--json", "--no-log", "--until",
                    "1970-01-01 00:00:02", "--limit", "1000"])
    st, _, body = w.get("/api/dumps?until=1970-01-01+00:00:02")
    check(st == 200 and json.loads(body) == [], "until 1970-01-01 00:00:02:"
          " no dump", str(body[:100]))


def test_big_store(fleet):
    """A store of 1,100 dumps: /api/dumps answers 1000 (the default and
    the most), as the CLI with --limit 1000; /buckets says when it is cut.
    It built all of them in memory (153 MB for 100,000 dumps)."""
    import os
    import signal
    import subprocess
    db = os.path.join(fleet.dir, "big.db")
    subprocess.run([webfix.FEED, "--history", db, "1100"], check=True,
                   timeout=300)
    ready = os.path.join(fleet.dir, "big.ready")
    web = fleet.spawn([webfix.CLI, "--db", db, "web", "--listen",
                       "127.0.0.1:0", "--ready-file", ready], "big.log")
    kv = webfix.wait_for("netoops web ready (big store)",
                         lambda: webfix.read_kv(ready) or
                         (web.poll() is not None and {"dead": 1}))
    if not check("dead" not in kv, "netoops web on the big store"):
        return
    w = Web(int(kv["port"]))
    st, _, body = w.get("/api/dumps?no_log=1")
    n = len(json.loads(body)) if st == 200 else -1
    check(n == 1000, "/api/dumps: 1000 dumps by default", str(n))
    api_equals_cli(w, db, "/api/dumps?no_log=1",
                   ["list", "--json", "--no-log", "--limit", "1000"])
    api_equals_cli(w, db, "/api/dumps?limit=1000&host=node-1*",
                   ["list", "--json", "--limit", "1000", "--host",
                    "node-1*"])
    text = page(w, "/buckets?limit=3")
    rows = len(re.findall(r"data-count=", text))
    check(rows == 3 and "The 3 biggest buckets; there are more" in text,
          "/buckets?limit=3: 3 rows and a note that it is cut", str(rows))
    text = page(w, "/buckets")
    rows = len(re.findall(r"data-count=", text))
    total = len(webfix.buckets(db))
    check(rows == total and ">%d buckets.<" % total in text,
          "/buckets: every bucket when fewer than 500", "%d %d"
          % (rows, total))
    web.send_signal(signal.SIGTERM)
    rc = web.wait(timeout=60)
    fleet.procs.remove(web)
    log = fleet.log("big.log")
    check(rc == 0 and "Sanitizer" not in log, "big store: clean exit",
          log[-2000:])


def test_extreme_times(fleet):
    """Dumps received at INT64_MIN, in 1969, 1970, a year ahead and at
    INT64_MAX, two within the last 30 days: every rate plot (overview 24h,
    7d, 30d; the bucket's 30 days) answers, counts only those in its
    range, and the server stays clean under UBSan (a slot's index is taken
    without signed overflow)."""
    import os
    import signal
    import subprocess
    db = os.path.join(fleet.dir, "edge.db")
    subprocess.run([webfix.FEED, "--extremes", db], check=True, timeout=60)
    ready = os.path.join(fleet.dir, "edge.ready")
    web = fleet.spawn([webfix.CLI, "--db", db, "web", "--listen",
                       "127.0.0.1:0", "--ready-file", ready], "edge.log")
    kv = webfix.wait_for("netoops web ready (extreme times)",
                         lambda: webfix.read_kv(ready) or
                         (web.poll() is not None and {"dead": 1}))
    if not check("dead" not in kv, "netoops web on the extreme times"):
        return
    w = Web(int(kv["port"]))
    for path, want in (("/?range=30d", 2), ("/?range=7d", 1),
                       ("/?range=24h", 1)):
        text = page(w, path)
        m = re.search(r'aria-label="(\d+) dumps, per', text)
        check(m and int(m.group(1)) == want, "rate plot of %s counts %d"
              % (path, want), m.group(0) if m else text[-300:])
    bks = webfix.buckets(db)
    if check(len(bks) == 1, "one bucket of extreme times", str(len(bks))):
        text = page(w, "/bucket/" + bks[0]["bucket"])
        m = re.search(r'aria-label="(\d+) dumps, per', text)
        check(m and int(m.group(1)) == 2, "bucket plot counts 2",
              m.group(0) if m else "")
    page(w, "/dumps?limit=1000")
    page(w, "/hosts")
    web.send_signal(signal.SIGTERM)
    rc = web.wait(timeout=60)
    fleet.procs.remove(web)
    log = fleet.log("edge.log")
    check(rc == 0 and "runtime error" not in log and
          "Sanitizer" not in log, "extreme times: clean exit", log[-2000:])


PER_IP = 8          # cmd_web.c CONN_PER_IP
TIMEOUT_S = 10      # cmd_web.c CONN_TIMEOUT_S


def test_slow_clients(w):
    """Slowloris: one address holding connections open with a partial
    request locked out every client (64 connections, 30 s each, reset by
    each byte).  Now one address holds at most 8: a ninth is refused at
    once, another address is still served, and idle ones are closed after
    10 s."""
    import socket
    idle = []
    for _ in range(PER_IP):
        s = socket.create_connection(("127.0.0.1", w.port), timeout=10)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        idle.append(s)
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", w.port), timeout=10)
    try:
        s.sendall(b"GET /style.css HTTP/1.1\r\nHost: x\r\nAuthorization:"
                  b" Bearer " + webfix.TOKEN.encode() + b"\r\n\r\n")
        got = s.recv(100)
    except (ConnectionResetError, BrokenPipeError):
        got = b""
    except socket.timeout:
        got = b"timeout"
    s.close()
    check(got == b"" and time.monotonic() - t0 < 5,
          "connection %d from one address refused at once" % (PER_IP + 1),
          "%r after %.1f s" % (got[:40], time.monotonic() - t0))
    c = http.client.HTTPConnection("127.0.0.1", w.port, timeout=10,
                                   source_address=("127.0.0.2", 0))
    t0 = time.monotonic()
    c.request("GET", "/style.css",
              headers={"Authorization": "Bearer " + webfix.TOKEN})
    st = c.getresponse().status
    c.close()
    check(st == 200 and time.monotonic() - t0 < 5,
          "another address served meanwhile", str(st))
    # the idle ones: closed by the server after its timeout
    t0 = time.monotonic()
    closed = 0
    for s in idle:
        s.settimeout(max(0.1, TIMEOUT_S + 6 - (time.monotonic() - t0)))
        try:
            closed += s.recv(100) == b""
        except ConnectionResetError:
            closed += 1
        except socket.timeout:
            pass
        s.close()
    check(closed == PER_IP, "idle connections closed after %d s"
          % TIMEOUT_S, "%d of %d in %.1f s" % (closed, PER_IP,
                                              time.monotonic() - t0))
    check(w.get("/style.css")[0] == 200, "served again afterwards")


def main():
    fleet = webfix.Fleet("web-http")
    ok = False
    try:
        fleet.fill()
        w = Web(fleet.start_web(token=True))
        bks = webfix.buckets(fleet.db)
        dumps = json.loads(cli(fleet.db, "list", "--json"))
        print("store: %d dumps (%d stored live by netoopsd), %d buckets"
              % (len(dumps), fleet.stored_live, len(bks)))
        check(fleet.stored_live > webfix.FEED_DUMPS, "netoopsd stored"
              " dumps of the storm", str(fleet.stored_live))
        test_token(w)
        test_pages(w, fleet.db, bks, dumps)
        test_escaping(w, dumps)
        test_gaps(w, dumps)
        test_api(w, fleet.db, bks, dumps)
        test_links(w, bks)
        test_glob_cap(w)
        test_bounds(w, fleet.db)
        test_big_store(fleet)
        test_extreme_times(fleet)
        test_slow_clients(w)
        test_usage(fleet)
        rc, log = fleet.stop_web()
        check(rc == 0, "netoops web exit status 0 on SIGTERM", str(rc))
        check("Sanitizer" not in log, "no sanitizer report", log[-2000:])
        ok = check.failed == 0
    finally:
        fleet.close(ok)
    return check.end()


if __name__ == "__main__":
    sys.exit(main())
