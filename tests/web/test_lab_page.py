"""The Lab page: stored reports listed per game and shown safely; nothing outside the
reports folder can be reached."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from flipgames.lab.report import new_figure, write_report
from flipgames.web.app import create_app
from flipgames.web.settings import Settings


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    root = tmp_path / "reports"
    chart = new_figure()
    chart.add_subplot().plot([1, 2], [2, 1])
    write_report(
        root / "ff3" / "easy",
        "flipflop-3x3: easy against easy",
        "# Easy\n\nHello <script>alert(1)</script>\n\n![chart](chart.png)\n",
        {"chart": chart},
        game="flipflop-3x3",
    )
    # A report written without a game, found under its game by the folder name.
    write_report(root / "rubiks-flip" / "lock", "Locks compared", "# Locks\n", {})
    write_report(root / "misc", "Something else", "# Other\n", {})
    (tmp_path / "secret.png").write_bytes(b"\x89PNG secret")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "report.md").write_text("# outside")
    (root / "escape").symlink_to(tmp_path / "outside")
    return root


@pytest.fixture
def client(tmp_path: Path, reports: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'arcade.sqlite'}", reports_dir=reports)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_the_lab_lists_reports_per_game(client: TestClient) -> None:
    page = client.get("/lab")
    assert page.status_code == 200
    text = page.text
    flipflop = text.index("<h2>FlipFlop 3x3</h2>")
    rubiks = text.index("<h2>Rubik&#x27;s Flip</h2>")
    other = text.index("<h2>Other</h2>")
    assert flipflop < rubiks < other  # in the registry's order, the rest last
    assert text.index('href="/lab/report/ff3/easy"') > flipflop
    assert rubiks < text.index('href="/lab/report/rubiks-flip/lock"') < other
    assert text.index('href="/lab/report/misc"') > other
    assert "outside" not in text  # a symbolic link out of the folder is not followed
    assert "Content-Security-Policy" in page.headers


def test_a_report_is_shown_with_its_charts_and_no_markup(client: TestClient) -> None:
    page = client.get("/lab/report/ff3/easy")
    assert page.status_code == 200
    assert "<title>flipflop-3x3: easy against easy · flipgames arcade</title>" in page.text
    assert "<script>alert" not in page.text and "&lt;script&gt;" in page.text
    assert '<img src="/lab/files/ff3/easy/chart.png" alt="chart"' in page.text
    chart = client.get("/lab/files/ff3/easy/chart.png")
    assert chart.status_code == 200 and chart.headers["content-type"] == "image/png"
    download = client.get("/lab/download/ff3/easy")
    assert download.status_code == 200
    assert download.headers["content-disposition"] == 'attachment; filename="easy.html"'
    assert "data:image/png;base64," in download.text


@pytest.mark.parametrize(
    "path",
    [
        "/lab/report/nothing",
        "/lab/report/ff3",  # a folder without report.md
        "/lab/report/escape",  # a symbolic link leading out
        "/lab/report/ff3/../../outside",
        "/lab/report/%2e%2e/outside",
        "/lab/files/../secret.png",
        "/lab/files/%2e%2e/secret.png",
        "/lab/files/ff3/easy/report.json",  # only images are files to fetch
        "/lab/files/ff3/easy/.hidden.png",
        "/lab/download/%2e%2e",
        "/lab/download/escape",
    ],
)
def test_no_path_leaves_the_reports(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404, path
    assert "secret" not in answer.text


def test_without_reports_the_page_says_how_to_make_one(tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'a.sqlite'}", reports_dir=tmp_path / "none"
    )
    with TestClient(create_app(settings)) as client:
        page = client.get("/lab")
    assert page.status_code == 200 and "No reports yet" in page.text
    assert f"--report {tmp_path / 'none'}" in page.text


def test_serve_reports_option_reaches_the_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FLIPGAMES_REPORTS", str(tmp_path))
    assert Settings(database_url="sqlite://").reports_dir == tmp_path
    monkeypatch.delenv("FLIPGAMES_REPORTS")
    monkeypatch.setenv("FLIPGAMES_DATA", str(tmp_path / "data"))
    assert Settings(database_url="sqlite://").reports_dir == tmp_path / "data" / "reports"
