"""The report in a real browser: headless Chromium (Debian's /usr/bin/chromium, which .ci/run installs) with
the network off opens the seeds' report; the page throws nothing and logs no error, asks for nothing remote,
the matrix and the networks render with a size, the tables sort; screenshots go to tests/artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium import Chromium, available
from test_report import Seed, report, seed  # noqa: F401 - the module fixtures

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

pytestmark = pytest.mark.skipif(not available(), reason="no Chromium at /usr/bin/chromium (or KG_CHROMIUM); the "
                                "README's test command does not install it: 'apt-get install -y chromium' (Debian; "
                                ".ci/run does)")


@pytest.fixture(scope="module")
def browser() -> Chromium:
    with Chromium(width=1280, height=900) as b:
        yield b


def _box(b: Chromium, selector: str) -> dict:
    return b.evaluate(f"(() => {{ const el = document.querySelector({selector!r}); if (!el) return null; "
                      "const r = el.getBoundingClientRect(); return {w: r.width, h: r.height}; })()")


def test_the_error_check_catches_a_page_that_throws(tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><p>x</p><img src="http://example.invalid/x.png">'
                   '<script>console.error("logged"); throw new Error("boom");</script></body></html>',
                   encoding="utf-8")
    with Chromium() as b:
        b.open(bad)
        errors = b.errors()
        assert any("boom" in x for x in errors), errors
        assert any("logged" in x for x in errors), errors
        assert "http://example.invalid/x.png" in b.remote_requests()


def test_the_report_renders_without_errors(browser: Chromium, report: tuple) -> None:  # noqa: F811
    out, _text, _ = report
    seconds = browser.open(out)
    assert seconds > 0
    assert browser.errors() == []
    assert browser.remote_requests() == []
    matrix = _box(browser, "#matrix-performance-analysis--compilers")
    assert matrix and matrix["w"] > 300 and matrix["h"] > 300, matrix
    assert browser.evaluate("document.querySelectorAll('#matrix-performance-analysis--compilers tr.both').length") > 0
    for net in ("#net-tool-cocitation", "#net-citation-graph", "#net-bibliographic-coupling"):
        box = _box(browser, net)
        assert box and box["w"] > 200 and box["h"] > 100, (net, box)
        assert browser.evaluate(f"document.querySelectorAll('{net} circle').length") > 1
    adoption = _box(browser, "svg.adoption")  # the most-cited tools over the years
    assert adoption and adoption["w"] > 300 and adoption["h"] > 100, adoption
    assert browser.evaluate("document.querySelectorAll('svg.adoption polyline').length") > 1
    for sid in ("overview", "headline", "tools", "works", "topics", "curation"):
        assert _box(browser, f"#{sid}")["h"] > 50, sid
    ARTIFACTS.mkdir(exist_ok=True)
    browser.screenshot(ARTIFACTS / "report-top.png")
    for sid in ("headline", "tools", "works", "topics", "curation"):
        browser.screenshot(ARTIFACTS / f"report-{sid}.png", f"#{sid}", most_height=3000)
    assert (ARTIFACTS / "report-headline.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tables_sort_and_the_pair_selector_switches(browser: Chromium, report: tuple) -> None:  # noqa: F811
    out, _text, _ = report
    browser.open(out)
    years = "Array.from(document.querySelectorAll('table.works tbody tr')).map(r => r.cells[4].textContent)"
    before = browser.evaluate(years)
    browser.evaluate("document.querySelectorAll('table.works th')[4].click()")
    up = browser.evaluate(years)
    assert up == sorted(before)
    browser.evaluate("document.querySelectorAll('table.works th')[4].click()")
    assert browser.evaluate(years) == sorted(before, reverse=True)
    n = browser.evaluate("document.querySelectorAll('#pair option').length")
    visible = "Array.from(document.querySelectorAll('.pair')).filter(p => !p.hidden).map(p => p.id)"
    assert browser.evaluate(visible) == ["pair-performance-analysis--compilers"]
    if n > 1:
        other = browser.evaluate("document.querySelectorAll('#pair option')[1].value")
        browser.evaluate("const s = document.getElementById('pair'); s.selectedIndex = 1; "
                         "s.dispatchEvent(new Event('change'))")
        assert browser.evaluate(visible) == [f"pair-{other}"]
    assert browser.errors() == []


def test_the_works_come_soon_after_the_folded_tool_lists(browser: Chromium, report: tuple) -> None:  # noqa: F811
    """The per-tool lists take one line until opened (opened, they are thousands of pixels); a link to a tool opens
    its list; the matrix's paper heads show whole (nothing clipped)."""
    out, _text, _ = report
    browser.open(out)
    top = "(s => document.querySelector(s).getBoundingClientRect().top + window.scrollY)"
    folded = _box(browser, "#tools-each")
    assert folded and folded["h"] < 40, folded
    gap = browser.evaluate(f"{top}('#works') - {top}('#tools-each')")
    assert gap < 120, gap
    browser.evaluate("document.getElementById('tools-each').open = true")
    assert _box(browser, "#tools-each")["h"] > 1000
    browser.evaluate("document.getElementById('tools-each').open = false")
    assert browser.evaluate("document.getElementById('tool-pytorch').open") is False
    browser.evaluate("location.hash = '#tool-pytorch'")
    assert browser.evaluate("[document.getElementById('tools-each').open, document.getElementById('tool-pytorch').open]"
                            ) == [True, True]
    heads = browser.evaluate("Array.from(document.querySelectorAll('#matrix-performance-analysis--compilers th.paper "
                             "div')).map(d => [d.scrollHeight - d.clientHeight, d.scrollWidth - d.clientWidth, "
                             "d.getBoundingClientRect().width <= d.parentElement.getBoundingClientRect().width])")
    assert len(heads) == 4 and all(h == [0, 0, True] for h in heads), heads
    assert browser.errors() == []


def test_it_prints(browser: Chromium, report: tuple) -> None:  # noqa: F811
    out, _text, _ = report
    browser.open(out)
    browser.evaluate("window.matchMedia('print').matches")  # (the print CSS is applied by printToPDF)
    data = browser.pdf(ARTIFACTS / "report.pdf")
    assert data.startswith(b"%PDF-")
    assert data.count(b"/Type /Page") - data.count(b"/Type /Pages") > 3  # several pages, not one clipped screen
