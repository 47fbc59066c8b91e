#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""web-browser: the dashboard in a real browser, Debian's chromium,
headless, over the store that webfix.py fills.

Every page is opened as /PAGE?token=T: chromium follows the redirect with
the cookie it was given, as a person's browser does.  From the DOM that
chromium built (--dump-dom): the buckets page's counts equal
`netoops buckets --json`; a dump that lost a datagram shows its log and
the gap marker; the hostile dump's text is text, not elements (no <script>,
<img> or <b> element from sender data).  Screenshots go to
$GH_OUT/web/ (default out/web/ at the top of the tree): overview.png,
buckets.png, bucket.png, dump.png, dump-hostile.png, hosts.png.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys

import webfix
from webfix import cli

check = webfix.Checks("web-browser")
OUT = os.path.join(os.environ.get("GH_OUT") or os.path.join(webfix.TOP,
                                                            "out"), "web")


def chromium():
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    def __init__(self, exe, port, tmp):
        self.exe = exe
        self.port = port
        self.profile = os.path.join(tmp, "chromium-profile")

    def run(self, path, *args):
        sep = "&" if "?" in path else "?"
        url = "http://127.0.0.1:%d%s%stoken=%s" % (self.port, path, sep,
                                                   webfix.TOKEN)
        argv = [self.exe, "--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-extensions",
                "--disable-default-apps", "--no-default-browser-check",
                "--user-data-dir=" + self.profile] + list(args) + [url]
        r = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=180)
        if r.returncode:
            print(r.stderr.decode(errors="replace")[-2000:])
        return r

    def dom(self, path):
        r = self.run(path, "--dump-dom")
        check(r.returncode == 0, "chromium --dump-dom " + path)
        return r.stdout.decode("utf-8", errors="replace")

    def shot(self, path, name, height=900):
        f = os.path.join(OUT, name)
        if os.path.exists(f):
            os.unlink(f)
        r = self.run(path, "--screenshot=" + f,
                     "--window-size=1280,%d" % height,
                     "--hide-scrollbars")
        check(r.returncode == 0 and os.path.getsize(f) > 10000,
              "screenshot " + name)


class Dom(html.parser.HTMLParser):
    """Elements by tag, table rows of cells, text of #id elements."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags = {}
        self.rows = []
        self.row = None
        self.cell = None
        self.stack = []
        self.ids = {}
        self.gaps = []
        self.in_gap = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "tr":
            self.row = []
            self.rows.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = {"text": "", "attrs": a, "href": None}
            self.row.append(self.cell)
        elif tag == "a" and self.cell is not None:
            self.cell["href"] = a.get("href")
        if a.get("class") == "gap":
            self.in_gap = True
            self.gaps.append("")
        self.stack.append((tag, a.get("id")))
        if a.get("id"):
            self.ids[a["id"]] = ""

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if tag in ("td", "th"):
            self.cell = None
        if tag == "span":
            self.in_gap = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data
        if self.in_gap:
            self.gaps[-1] += data
        for _, i in self.stack:
            if i:
                self.ids[i] += data


def test_buckets(b, db):
    d = Dom(b.dom("/buckets"))
    want = [(x["bucket"], x["count"]) for x in webfix.buckets(db)]
    got = []
    for row in d.rows:
        if len(row) < 6 or "data-count" not in row[0]["attrs"]:
            continue
        href = row[5]["href"]
        got.append((href.split("/bucket/", 1)[1] if href else "-",
                    int(row[0]["text"])))
    check(got == want, "bucket counts in the DOM == netoops buckets --json",
          "\n%s\n%s" % (got[:5], want[:5]))
    check(len(got) > 10, "many buckets shown", str(len(got)))


def test_dump(b, dumps):
    gap = [x for x in dumps if x["host"] == "gap-plain"][0]
    d = Dom(b.dom("/dump/%d" % gap["id"]))
    log = d.ids.get("log", "")
    want_marker = "[... %d bytes missing ...]" % gap["gaps"][0]["len"]
    check(d.gaps == [want_marker], "the gap marker, marked", str(d.gaps))
    lines = [l for l in gap["log"].splitlines() if l and "[..." not in l]
    check(len(lines) > 20 and all(l in log for l in lines),
          "every log line in the page", str(len(lines)))
    check(log.index(want_marker) > log.index(lines[0]) and
          log.index(want_marker) < log.index(lines[-1]),
          "the marker where the datagram was lost")

    evil = [x for x in dumps if x["host"] and "<script>" in x["host"]][0]
    d = Dom(b.dom("/dump/%d" % evil["id"]))
    check("script" not in d.tags and "img" not in d.tags and
          "b" in d.tags and d.tags["b"] == 1,
          "no element from sender text", str(d.tags))
    header = d.ids.get("header", "")
    check('<script>alert("host")</script>&\'\\xff-evil' in header,
          "hostname shown as text", header[:200])
    check("<script>alert('user')</script>" in d.ids.get("user", ""),
          "user field shown as text")
    check("</pre><img src=x onerror=alert(1)>" in d.ids.get("log", ""),
          "log shown as text")


def main():
    exe = chromium()
    if not exe:
        print("web-browser: chromium missing (scripts/install-deps.sh"
              " installs it)")
        print("web-browser: 0 passed, 1 failed")
        return 1
    fleet = webfix.Fleet("web-browser")
    ok = False
    try:
        fleet.fill()
        b = Browser(exe, fleet.start_web(token=True), fleet.dir)
        dumps = json.loads(cli(fleet.db, "list", "--json"))
        os.makedirs(OUT, exist_ok=True)
        test_buckets(b, fleet.db)
        test_dump(b, dumps)
        top = webfix.buckets(fleet.db)[0]["bucket"]
        gap = [x for x in dumps if x["host"] == "gap-plain"][0]["id"]
        evil = [x for x in dumps if x["host"] and
                "<script>" in x["host"]][0]["id"]
        b.shot("/", "overview.png", 1100)
        b.shot("/buckets", "buckets.png")
        b.shot("/bucket/" + top, "bucket.png", 1200)
        b.shot("/dump/%d" % gap, "dump.png", 1400)
        b.shot("/dump/%d" % evil, "dump-hostile.png", 1100)
        b.shot("/hosts", "hosts.png")
        rc, log = fleet.stop_web()
        check(rc == 0 and "Sanitizer" not in log,
              "netoops web stopped clean", log[-2000:])
        print("screenshots in " + OUT)
        ok = check.failed == 0
    finally:
        fleet.close(ok)
    return check.end()


if __name__ == "__main__":
    sys.exit(main())
