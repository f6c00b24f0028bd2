"""Regression tests for issue 24's server items (security and operations): what an attacker
and an operator ran into. Each test names the hole it closes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flipgames.lab.report import write_report
from flipgames.web.app import create_app
from flipgames.web.settings import Settings


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    """A reports folder whose one report has its files linked to secrets outside it."""
    root = tmp_path / "reports"
    write_report(root / "linked", "Linked", "# Linked\n", {})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# the operator's secret\n")
    (outside / "secret.html").write_text("<p>the operator's secret</p>\n")
    for name, target in (("report.md", "secret.md"), ("index.html", "secret.html")):
        (root / "linked" / name).unlink()
        (root / "linked" / name).symlink_to(outside / target)
    return root


@pytest.fixture
def client(tmp_path: Path, reports: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}", reports_dir=reports)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


# --- 13: a link inside a report folder is not followed out of the reports -------------------


@pytest.mark.parametrize("path", ["/lab/report/linked", "/lab/download/linked"])
def test_a_report_file_linked_out_of_the_reports_is_not_served(
    client: TestClient, path: str
) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert "secret" not in answer.text


def test_a_report_whose_markdown_is_linked_out_is_not_listed(client: TestClient) -> None:
    page = client.get("/lab")
    assert page.status_code == 200
    assert "/lab/report/linked" not in page.text
