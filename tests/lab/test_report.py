"""Reports: the folder's files, figures inlined in a self-contained page, markup escaped;
the simulation and comparison reports."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from toy import Ladder

from flipgames.core.errors import FlipgamesError, OptionError
from flipgames.lab import compare
from flipgames.lab.report import (
    check_report_folder,
    new_figure,
    simulation_figures,
    simulation_markdown,
    write_report,
)
from flipgames.lab.simulate import simulate


def test_write_report_inlines_figures_and_keeps_the_files(tmp_path: Path) -> None:
    chart = new_figure()
    chart.add_subplot().plot([1, 2, 3], [3, 1, 2])
    extra = new_figure()
    extra.add_subplot().bar([1], [1])
    text = "# Title\n\nSome <script>alert(1)</script> text.\n\n![The chart](chart.png)\n"
    page = write_report(tmp_path / "out", "A <title>", text, {"chart": chart, "extra": extra})
    folder = tmp_path / "out"
    assert page == folder / "index.html"
    assert sorted(p.name for p in folder.iterdir()) == [
        "chart.png",
        "extra.png",
        "index.html",
        "report.json",
        "report.md",
    ]
    png = (folder / "chart.png").read_bytes()
    assert png.startswith(b"\x89PNG")
    html = page.read_text()
    # Both figures are inlined (the unreferenced one under "Figures"); no file is linked.
    inlined = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert [base64.b64decode(data) for data in inlined] == [
        png,
        (folder / "extra.png").read_bytes(),
    ]
    assert 'src="chart.png"' not in html
    # Markup in the text or the title is shown, never run.
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<title>A &lt;title&gt;</title>" in html
    markdown = (folder / "report.md").read_text()
    assert "![The chart](chart.png)" in markdown and "![extra](extra.png)" in markdown
    meta = json.loads((folder / "report.json").read_text())
    assert meta["title"] == "A <title>" and meta["game"] is None and meta["written"]


def test_figure_names_and_folders_are_checked(tmp_path: Path) -> None:
    with pytest.raises(FlipgamesError, match=r"figure name '\.\./x'"):
        write_report(tmp_path, "t", "", {"../x": new_figure()})
    a_file = tmp_path / "file"
    a_file.write_text("")
    with pytest.raises(FlipgamesError, match="is a file"):
        check_report_folder(a_file)
    with pytest.raises(FlipgamesError, match="cannot create the folder"):
        check_report_folder(a_file / "below")


def test_simulation_report_names_every_metric(tmp_path: Path) -> None:
    result = simulate(Ladder({"length": 6}), ("random", "random"), 5, seed=1)
    text = simulation_markdown(result)
    for words in (
        "First player wins** 5 (100.0%",
        "Second player wins** 0",
        "Draws** 0",
        "First-player advantage",
        "A (random) wins** 3 (60.0%",
        "B (random) wins** 2 (40.0%",
        "Decided** (games with a winner; Ludii's completion; this share was called decisiveness",
        "Drawishness** (draws by the rules, games stopped at the cap left out) 0",
        "Outcome uniformity** (1 - variance of a seat's result): 1.000",
        "Drama** (how far the eventual winner was behind): 0.233 (5 games)",
        "Decisiveness** (share of a decided game before the winner passes",
        "Board coverage**: not applicable (the game has no board sites",
        "Clarity (variance)**: not applicable (not computed: it evaluates every legal action",
        "mean 6.0, median 6, 90th percentile 6",
        "2.00 legal actions",
        "Repetition draws** 0",
        "Capped games",
        "Lead changes** (by the game's evaluation): 2.00 a game",
        "Seconds per move",
    ):
        assert words in text, words
    figures = simulation_figures(result)
    assert sorted(figures) == ["branching", "lengths", "win-rates"]
    # The branching chart: the mean line and a bar of games per move number.
    branching_axes = figures["branching"].axes
    assert len(branching_axes) == 2
    assert [p.get_height() for p in branching_axes[1].patches] == [5] * 6
    page = write_report(tmp_path, "sim", text, figures, game="ladder")
    assert page.read_text().count("data:image/png;base64,") == 3


def test_the_branching_chart_cuts_the_noisy_tail() -> None:
    from flipgames.lab.report import branching_chart, tail_start

    counts = [200, 200, 150, 60, 9, 2]  # 5% of 200 is 10: moves 5 and 6 are the tail
    assert tail_start(counts) == 4
    chart = branching_chart([3.0, 3.0, 2.5, 2.0, 6.0, 9.0], counts, "t")
    line_axes, bar_axes = chart.axes
    (line,) = line_axes.get_lines()
    assert list(line.get_xdata()) == [1, 2, 3, 4]
    assert [p.get_height() for p in bar_axes.patches] == [200, 200, 150, 60]
    assert "moves 5-6 (too few games) cut" in line_axes.get_xlabel()


def test_parse_vary_refuses_bad_names_and_values() -> None:
    assert compare.parse_vary("rubiks-flip", ["lock=king,orthogonal"], {}) == {
        "lock": ["king", "orthogonal"]
    }
    for pair, words in (
        ("lock", "write name=value,value"),
        ("lock=king,", "write name=value,value"),
        ("colour=red,blue", "unknown option 'colour'"),
        ("lock=king,diagonal", "bad value 'diagonal' for option 'lock'"),
        ("lock=king,king", "listed twice"),
    ):
        with pytest.raises(OptionError, match=words):
            compare.parse_vary("rubiks-flip", [pair], {})
    with pytest.raises(OptionError, match="given twice"):
        compare.parse_vary("rubiks-flip", ["lock=king"], {"lock": "king"})


def test_compare_solved_and_simulated_variants() -> None:
    # Checkered Flag is solved for both starts: exact values, no games played.
    solved = compare.compare(
        "checkered-flag", {}, {"start": ["spin", "first"]}, ("easy", "easy"), 10, seed=1
    )
    assert [v.method for v in solved] == ["solved", "solved"]
    spin, first = solved
    # A spin decides who starts: the race is fair. Starting first is worth something.
    assert spin.first_player_score() == pytest.approx(0.5)
    assert first.first_player_score() > 0.5
    assert first.win is not None and first.loss is not None and first.draw is not None
    assert first.win + first.draw + first.loss == pytest.approx(1.0)
    # Rubik's Flip is not solved by enumeration: self-play.
    played = compare.compare(
        "rubiks-flip", {}, {"lock": ["king", "orthogonal"]}, ("random", "random"), 6, seed=2
    )
    assert [v.method for v in played] == ["simulated", "simulated"]
    assert [v.varied for v in played] == [{"lock": "king"}, {"lock": "orthogonal"}]
    assert all(v.simulation is not None and v.simulation.games == 6 for v in played)
    rows = compare.table(played)
    assert rows[0] == [
        "lock",
        "method",
        "first-player score",
        "draws",
        "stopped at cap",
        "mean length",
    ]
    assert len(rows) == 3
    setup = compare.Setup("rubiks-flip", {"flip": "flap"}, ("random", "random"), 2, 6)
    text = compare.markdown(setup, played)
    assert "![First-player score by variant](comparison.png)" in text
    # The report says what ran: the fixed options in the title, the seed, agents in full.
    assert text.startswith("# rubiks-flip (flip=flap): options compared")
    assert "- **Fixed options** (`-o`): flip=flap;" in text
    assert "A = random (a uniformly random legal action)" in text
    assert "- **Seed** 2; 6 games per simulated variant" in text
    assert sorted(compare.figures(setup, played)) == ["comparison"]


def test_solved_variants_show_their_length_and_check_the_agents() -> None:
    variants = compare.compare(
        "flip-switch", {}, {"rounds": ["1", "3"]}, ("random", "random"), 6, seed=1
    )
    solved, played = variants
    assert (solved.method, played.method) == ("solved", "simulated")
    # One round is solved with chance: its length is the mean of seeded perfect-play games.
    assert solved.length is not None and solved.length > 0
    assert solved.length_how.startswith("mean of 6 perfect-play games")
    row = compare.table(variants)[1]
    assert row[-2] == "-" and row[-1].endswith(f"(perfect play, {solved.length_how})")
    # The agents played the solved round too: perfect play draws it, random play decides it.
    assert solved.check is not None and solved.check.games == 6
    (warning,) = compare.warnings(variants)
    assert warning.startswith("rounds=1: random against random drew")
    setup = compare.Setup("flip-switch", {}, ("random", "random"), 1, 6)
    assert "## Warnings: the agents contradict a solved value" in compare.markdown(setup, variants)


def test_the_comparison_chart_is_scaled_to_the_data() -> None:
    from flipgames.lab.report import score_chart

    chart = score_chart(["a", "b"], [0.541, 0.627], [(0.52, 0.56), (0.60, 0.65)], "t")
    (axes,) = chart.axes
    low, high = axes.get_xlim()
    # The axis spans the intervals with a margin, not 0 to 1: 0.541 and 0.627 stand apart.
    assert 0.45 < low < 0.52 and 0.65 < high < 0.7
    # The 95% intervals are drawn as error bars from their low to their high end.
    (bars,) = axes.containers
    segments = bars.lines[2][0].get_segments()
    ends = [tuple(float(x) for x in segment[:, 0]) for segment in segments]
    assert ends == [pytest.approx((0.52, 0.56)), pytest.approx((0.60, 0.65))]
