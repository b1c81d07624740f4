#!/usr/bin/env python3
"""The graph page (`keyedarchive graph FILE --html`, `keyedarchive diff A B --html`) in a real
headless browser: Debian's chromium driven by Python's playwright. Checks what a person would:
the root's nodes are shown; expanding a pilot shows its airplanes; the shared airplane's second
reference jumps to the first; a back-reference is marked; search finds a registration number;
the largest corpus archive opens within two seconds and expands at once; a hostile archive's
markup, script and bidirectional controls show as text; the page fetches nothing.

    python3 Tests/Browser/test_graph_page.py            # from the package root, after swift build
    KEYEDARCHIVE_SCREENSHOT=1 python3 Tests/Browser/test_graph_page.py
        # also writes Docs/images/graph-fleet.png (the README's picture); never otherwise

Environment: KEYEDARCHIVE_TOOL (the keyedarchive executable; default .build/debug/keyedarchive),
CHROMIUM (default /usr/bin/chromium). Without playwright or chromium it prints a line starting
"SKIP:" and exits 0; a failed check exits 1. GraphPageBrowserTests (swift test) runs this.
"""
import os
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.environ.get("KEYEDARCHIVE_TOOL", os.path.join(ROOT, ".build", "debug", "keyedarchive"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "fixtures", "apple")
LARGEST = os.path.join(CORPUS, "xcuserstate", "lancemc85_Trainme.xcuserstate")
FLEET = "Fixtures/fleet.plist"
HOSTILE = "Fixtures/graph/hostile-strings.plist"
SCREENSHOT = os.path.join(ROOT, "Docs", "images", "graph-fleet.png")

try:
    from playwright.sync_api import sync_playwright
except ImportError:
    sync_playwright = None


def skip_reason():
    if sync_playwright is None:
        return "Python's playwright is not installed (pip install playwright)"
    if not os.access(CHROMIUM, os.X_OK):
        return "no chromium at %s (apt-get install chromium, or set CHROMIUM)" % CHROMIUM
    if not os.access(TOOL, os.X_OK):
        return "no keyedarchive executable at %s (swift build, or set KEYEDARCHIVE_TOOL)" % TOOL
    return None


def make(args, out):
    # From the package root, so the page names the fixture by its relative path.
    subprocess.run([TOOL] + args + ["-o", out, "--force"], check=True, capture_output=True, cwd=ROOT)
    return "file://" + out


class GraphPageTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="keyedarchive-pages-")
        cls.pw = sync_playwright().start()
        cls.browser = cls.pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()
        cls.pw.stop()
        cls.dir.cleanup()

    def open(self, url, viewport=None):
        page = self.browser.new_page(viewport=viewport or {"width": 1280, "height": 900})
        self.requests, self.dialogs, self.errors = [], [], []
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']", timeout=10000)
        self.addCleanup(page.close)
        return page

    def page_of(self, path, name, extra=()):
        return make(["graph", path, "--html"] + list(extra), os.path.join(self.dir.name, name))

    @staticmethod
    def row(page, text):
        """The visible tree row whose text contains `text` (the first)."""
        return page.locator(".row", has_text=text).first

    def expand(self, page, text):
        self.row(page, text).locator(".tw").click()

    def test_fleet(self):
        page = self.open(self.page_of(FLEET, "fleet.html"))
        # The root's nodes: the root list, expanded, and its three pilots.
        self.assertTrue(self.row(page, "root: #1 NSArray").is_visible())
        for pilot in ("[0]: #2 Pilot", "[1]: #28 Pilot", "[2]: #37 Pilot"):
            self.assertTrue(self.row(page, pilot).is_visible(), pilot)
        self.assertEqual(page.locator(".row", has_text="PoweredAirplane").count(), 0, "airplanes rendered before they are asked for")
        # Expanding a pilot shows its airplanes.
        self.expand(page, "[0]: #2 Pilot")
        self.assertTrue(self.row(page, 'name: "Amelia"').is_visible())
        self.expand(page, "airplanes: #4 NSArray")
        self.assertTrue(self.row(page, "[0]: #5 PoweredAirplane").is_visible())
        self.assertTrue(self.row(page, "[1]: #11 Glider").is_visible())
        # A back-reference is marked: each airplane's owner is its pilot, still open above it.
        self.expand(page, "[0]: #5 PoweredAirplane")
        owner = self.row(page, "owner: → #2 Pilot")
        self.assertTrue(owner.is_visible())
        self.assertIn("back-reference", owner.locator(".badge.back").text_content())
        self.assertTrue(self.row(page, 'registrationNumber: "N3918K"').is_visible())
        # The shared glider: its first occurrence says so; Bessie's reference jumps to it.
        first = page.locator(".row[data-i]", has_text="[1]: #11 Glider").first
        self.assertIn("shared: 1 more reference", first.text_content())
        self.expand(page, "[1]: #28 Pilot")
        page.locator(".row", has_text="airplanes: #30 NSArray").locator(".tw").click()
        page.locator(".row", has_text="[0]: → #11 Glider").locator("a.ref").click()
        self.assertIn("hl", first.get_attribute("class"))
        self.assertIn("sel", first.get_attribute("class"))
        self.assertTrue(first.is_visible())
        self.assertEqual(page.locator("#path").text_content(), "root[0].airplanes[1]")
        # Collapse hides, expand shows again.
        self.expand(page, "[1]: #28 Pilot")
        self.assertFalse(self.row(page, "airplanes: #30 NSArray").is_visible())
        self.expand(page, "[1]: #28 Pilot")
        self.assertTrue(self.row(page, "airplanes: #30 NSArray").is_visible())
        # Search finds a registration number (of an airplane not yet shown) and reveals it.
        page.fill("#search", "D-2402")
        page.keyboard.press("Enter")
        result = page.locator(".results .result").first
        self.assertIn("root[2].airplanes[0].registrationNumber", result.text_content())
        result.click()
        found = self.row(page, 'registrationNumber: "D-2402"')
        self.assertTrue(found.is_visible())
        self.assertIn("hl", found.get_attribute("class"))
        self.assertEqual(page.locator("#path").text_content(), "root[2].airplanes[0].registrationNumber")
        # The legend: classes with counts (three pilots; NSArray: the root and three lists).
        legend = page.locator("table.legend").text_content()
        self.assertIn("Pilot3", legend)
        self.assertIn("NSArray4", legend)
        self.assertEqual([u for u in self.requests if not u.startswith("file://")], [])
        self.assertEqual(self.errors, [])
        if os.environ.get("KEYEDARCHIVE_SCREENSHOT") == "1" or "--screenshot" in sys.argv:
            page.fill("#search", "Glider")
            page.keyboard.press("Enter")
            self.row(page, "[1]: #11 Glider").scroll_into_view_if_needed()
            page.evaluate("window.scrollTo(0, 0)")
            os.makedirs(os.path.dirname(SCREENSHOT), exist_ok=True)
            page.screenshot(path=SCREENSHOT)
            print("wrote", SCREENSHOT)

    def test_start_opens_on_the_key_path(self):
        # --start root[1].airplanes[0]: Bessie's reference to the shared glider, shown where it is in full.
        page = self.open(self.page_of(FLEET, "start.html", ["--start", "root[1].airplanes[0]"]))
        self.assertEqual(page.locator("#path").text_content(), "root[0].airplanes[1]")
        row = page.locator(".row.sel")
        self.assertIn("#11 Glider", row.text_content())
        self.assertIn("hl", row.get_attribute("class"))

    def test_diff_page(self):
        out = os.path.join(self.dir.name, "diff.html")
        subprocess.run([TOOL, "diff", FLEET, "Fixtures/graph/fleet-changed.plist", "--html", "-o", out, "--force"], cwd=ROOT, capture_output=True)
        page = self.open("file://" + out)
        self.assertEqual(page.locator(".side").count(), 2)
        items = page.locator(".diffs .diff-item")
        self.assertEqual(items.count(), 2)
        item = page.locator(".diffs .diff-item", has_text="root[0].airplanes[0].registrationNumber")
        self.assertIn('"N3918K" → "N3918X"', item.text_content())
        item.click()
        a = page.locator(".side").nth(0).locator(".row", has_text='registrationNumber: "N3918K"')
        b = page.locator(".side").nth(1).locator(".row", has_text='registrationNumber: "N3918X"')
        for row in (a, b):
            self.assertTrue(row.is_visible())
            self.assertIn("diff", row.get_attribute("class"))
            self.assertIn("hl", row.get_attribute("class"))
        # The sharing change: in A the reference to Amelia's glider, in B a glider of its own.
        page.locator(".diffs .diff-item[data-kind='sharingChanged']").click()
        self.assertEqual(page.locator("#path").text_content(), "root[1].airplanes[0]")
        self.assertIn("hl", page.locator(".side").nth(1).locator(".row.hl", has_text="[0]: #").first.get_attribute("class"))
        self.assertEqual(self.errors, [])

    def test_hostile_archive_renders_as_text(self):
        page = self.open(self.page_of(HOSTILE, "hostile.html"))
        self.expand(page, "friend: #6")
        tree = page.locator(".tree")
        text = tree.text_content()
        # The archive's markup is text ...
        self.assertIn('<script>document.title=\\"pwned\\"</script>', text)
        self.assertIn('"<b onclick=\\"x()\\">key</b>"', text)
        self.assertIn("</script><img src=x onerror=", text)
        self.assertIn('Evil<script>alert(1)</script>\\"Class', text)
        # ... and made no element, ran nothing, fetched nothing.
        self.assertEqual(tree.locator("script, img, iframe, b").count(), 0)
        self.assertEqual(page.locator("script").count(), 2)  # the page's data and its own script
        self.assertNotEqual(page.title(), "pwned")
        self.assertEqual(self.dialogs, [])
        self.assertEqual(self.errors, [])
        self.assertEqual([u for u in self.requests if not u.startswith("file://")], [])
        # Bidirectional controls and separators show as escapes, never as the characters.
        self.assertIn("abc\\u202egnp.exe\\u2066x\\u2069 \\u200f", text)
        self.assertIn("line\\nbreak\\u2028sep & <!-- -->", text)
        body = page.evaluate("document.body.innerText")
        for control in ("\u202e", "\u2066", "\u2069", "\u200f", "\u2028"):
            self.assertNotIn(control, body)
        # The back-reference of the cycle is marked here too.
        self.assertIn("back-reference", self.row(page, "back: → #1").text_content())

    def test_deep_chain_reveals_its_deepest_node(self):
        # 100,000 nested arrays: the deepest is shown in a tree that starts 100 levels above it.
        page = self.open(self.page_of("Fixtures/hostile/archives/deep-chain-100000.plist", "deep.html"))
        started = time.monotonic()
        page.evaluate("window.keyedarchiveViews[0].focus(window.keyedarchiveViews[0].g.p.length - 1)")
        self.assertLess(time.monotonic() - started, 2.0)
        path = page.locator("#path").text_content()
        self.assertTrue(path.startswith("root[0][0][0][0][0][0][0].….(") and path.endswith("[0][0]"), path)
        self.assertIn("nested too deep to show from the top", page.locator(".tree .warn").text_content())
        depth = page.evaluate("(() => { let d = 0, e = document.querySelector('.row.sel'); while (e) { e = e.parentElement; d++; } return d; })()")
        self.assertLess(depth, 500)
        page.locator(".tree .warn a.ref").click()
        self.assertTrue(self.row(page, "root: #1 NSArray").is_visible())
        self.assertEqual(self.errors, [])

    def test_largest_corpus_archive_opens_within_two_seconds(self):
        if not os.path.exists(LARGEST):
            print("SKIP (one check): Apple corpus not found at", CORPUS)
            return
        url = self.page_of(LARGEST, "largest.html")
        page = self.browser.new_page()
        self.addCleanup(page.close)
        started = time.monotonic()
        page.goto(url)
        page.wait_for_selector("body[data-ready='1']", timeout=10000)
        opened = time.monotonic() - started
        self.assertLess(opened, 2.0, "the largest corpus archive's page took %.2f s to open" % opened)
        self.assertGreater(page.locator(".row").count(), 0)
        # Expanding the biggest node shown is immediate (at most 200 rows at a time).
        biggest = page.evaluate("""() => {
            let best = null, most = -1;
            for (const r of document.querySelectorAll('.row')) {
                const m = /\\((\\d+)\\)/.exec(r.querySelector('.cls') ? r.textContent : '');
                if (m && +m[1] > most && r.parentNode.querySelector(':scope > .kids') === null) { most = +m[1]; best = r.dataset.i; }
            }
            return best;
        }""")
        if biggest is not None:
            started = time.monotonic()
            page.locator(".row[data-i='%s'] .tw" % biggest).first.click()
            page.wait_for_selector(".row[data-i='%s'] + .kids" % biggest)
            self.assertLess(time.monotonic() - started, 0.5)
        page.fill("#search", "NSMutableArray")
        page.keyboard.press("Enter")
        self.assertGreater(page.locator(".results .result").count(), 0)
        print("largest corpus archive: page opened in %.2f s" % opened)


if __name__ == "__main__":
    reason = skip_reason()
    if reason:
        print("SKIP: browser test of the graph page:", reason)
        sys.exit(0)
    argv = [a for a in sys.argv if a != "--screenshot"]
    result = unittest.main(argv=argv, exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
