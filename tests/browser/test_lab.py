"""The Lab page in a real browser: from the lobby's navigation to a stored report, by mouse."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from harness import running_arcade
from test_accessibility import serious_violations

from flipgames.core.registry import make
from flipgames.lab.report import simulation_figures, simulation_markdown, write_report
from flipgames.lab.simulate import simulate


@pytest.fixture(scope="module")
def lab_arcade(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An arcade whose reports folder holds one simulation report."""
    folder = tmp_path_factory.mktemp("lab")
    result = simulate(make("flipflop-3x3"), ("random", "easy"), 20, seed=1)
    write_report(
        folder / "reports" / "flipflop-3x3-random-easy",
        "flipflop-3x3: random against easy, 20 games",
        simulation_markdown(result),
        simulation_figures(result),
        game="flipflop-3x3",
    )
    with (
        mock.patch.dict(os.environ, {"FLIPGAMES_REPORTS": str(folder / "reports")}),
        running_arcade(folder) as base_url,
    ):
        yield base_url


def test_open_a_report_from_the_lobby(page: Any, lab_arcade: str) -> None:
    page.goto(lab_arcade + "/")
    page.get_by_role("link", name="Lab", exact=True).click()
    page.wait_for_url(lab_arcade + "/lab")
    games = page.get_by_role("region", name="FlipFlop 3x3")
    games.get_by_role("link", name="flipflop-3x3: random against easy, 20 games").click()
    page.wait_for_url(lab_arcade + "/lab/report/flipflop-3x3-random-easy")
    report = page.locator(".lab-report")
    assert "random against easy, 20 games" in report.locator("h1").inner_text()
    assert "First player wins" in report.inner_text()
    charts = report.locator("img")
    assert charts.count() == 3
    for index in range(3):
        # Each chart loaded (a broken image has no natural width).
        assert charts.nth(index).evaluate("img => img.complete && img.naturalWidth > 100")
    page.get_by_role("link", name="All reports").click()
    page.wait_for_url(lab_arcade + "/lab")


def test_lab_pages_have_no_serious_accessibility_violations(browser: Any, lab_arcade: str) -> None:
    # The CSP is bypassed only so that the test can inject axe (test_accessibility.py).
    context = browser.new_context(viewport={"width": 1100, "height": 800}, bypass_csp=True)
    page = context.new_page()
    try:
        for path in ("/lab", "/lab/report/flipflop-3x3-random-easy"):
            page.goto(lab_arcade + path)
            assert serious_violations(page) == [], path
    finally:
        context.close()
