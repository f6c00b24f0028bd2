"""Reports a designer can keep: one folder with a self-contained HTML page, Markdown and charts.

:func:`write_report` is what every lab command with ``--report DIR`` calls. The folder gets

* ``report.md``: the Markdown, figures referenced as image files beside it;
* one PNG per figure (``<name>.png``);
* ``index.html``: the same text as a page that needs nothing else (figures inlined as base64
  PNG, styles inline), to mail or archive;
* ``report.json``: the title, the game (where known) and when it was written, which the
  arcade's Lab page lists (``flipgames serve --reports DIR``);
* ``results.json``: the figures of the finished games (``simulate`` and ``compare``, through
  :func:`keep_and_report`), written before anything is drawn, so a chart that fails loses
  nothing.

Figures are ``matplotlib.figure.Figure`` objects drawn without pyplot (no global state, no
display needed: the Agg renderer). matplotlib loads only when a chart is drawn, so commands
that draw none stay fast. The Markdown is rendered with raw HTML switched off: text from a
game or a user cannot inject markup into the page.

The charts of a simulation: win rates with their 95% intervals, the histogram of game lengths
and the branching factor by ply with the number of games behind each ply (the noisy tail cut);
of a comparison: each variant's first-player score with its interval, on an axis scaled to
the data.
"""

from __future__ import annotations

import base64
import datetime
import html
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flipgames.agents.arena import wilson_interval
from flipgames.core.errors import FlipgamesError, quote_path
from flipgames.lab.stats import rate, rate_interval

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from flipgames.lab.simulate import SimulationResult

#: ``![alt](target)`` in Markdown, to point figure references at inlined images.
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
#: Figure names become file names: letters, digits, ``-`` and ``_`` only.
_NAME = re.compile(r"[A-Za-z0-9_-]+")

_STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; color: #1d2433; background: #f6f7fb; margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; background: #fff; }
h1, h2, h3 { line-height: 1.2; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #c9cedb; padding: .3rem .6rem; text-align: left; }
th { background: #eef0f6; }
img { max-width: 100%; height: auto; }
code { background: #eef0f6; padding: 0 .2rem; }
"""


def markdown_to_html(markdown: str) -> str:
    """Render Markdown (CommonMark and tables) with raw HTML escaped, not passed through.

    >>> markdown_to_html("# Hi <b>")
    '<h1>Hi &lt;b&gt;</h1>\\n'
    >>> "<td>1</td>" in markdown_to_html("| a |\\n|---|\\n| 1 |")
    True
    """
    from markdown_it import MarkdownIt  # a dependency of rich, loaded on first use

    rendered: str = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    return rendered


def figure_png(figure: Figure) -> bytes:
    """The figure as PNG bytes."""
    import io

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


def write_report(
    directory: Path,
    title: str,
    markdown: str,
    figures: dict[str, Figure],
    *,
    game: str | None = None,
) -> Path:
    """Write the report folder (module docstring); return the path of ``index.html``.

    ``markdown`` may reference a figure as ``![caption](NAME.png)``; figures it does not
    reference are added at the end under "Figures". ``game`` (a registered game name) lets
    the arcade's Lab page list the report under its game. The folder is created if needed;
    files of an earlier report there are replaced.
    """
    for name in figures:
        if not _NAME.fullmatch(name):
            raise FlipgamesError(f"figure name {name!r}: use letters, digits, - and _ only")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FlipgamesError(
            f"--report {quote_path(directory)}: cannot create the folder: {exc.strerror or exc}"
        ) from None
    images = {f"{name}.png": figure_png(figure) for name, figure in figures.items()}
    referenced = {target for _, target in _IMAGE.findall(markdown)}
    extra = [name for name in images if name not in referenced]
    text = markdown.rstrip() + "\n"
    if extra:
        text += "\n## Figures\n\n" + "".join(f"![{n[:-4]}]({n})\n\n" for n in extra)
    for name, data in images.items():
        (directory / name).write_bytes(data)
    (directory / "report.md").write_text(text, encoding="utf-8")

    def inline(match: re.Match[str]) -> str:
        alt, target = match.groups()
        if target not in images:
            return match.group(0)
        encoded = base64.b64encode(images[target]).decode("ascii")
        return f"![{alt}](data:image/png;base64,{encoded})"

    body = markdown_to_html(_IMAGE.sub(inline, text))
    page = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
    path = directory / "index.html"
    path.write_text(page, encoding="utf-8")
    meta = {
        "title": title,
        "game": game,
        "written": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    (directory / "report.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return path


def keep_and_report(
    directory: Path,
    results: Any,
    title: str,
    draw: Callable[[], tuple[str, dict[str, Figure]]],
    *,
    game: str | None = None,
) -> Path | None:
    """Keep ``results`` (JSON-able: what the finished games showed) as ``results.json`` in
    ``directory`` first, then write the report whose Markdown and figures ``draw`` gives;
    return the path of ``index.html``. A report that fails (a chart, the disk) never loses
    the games: one warning line on stderr, and None."""
    kept = directory / "results.json"
    try:
        kept.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"flipgames: warning: cannot write {kept}: {exc.strerror or exc}", file=sys.stderr)
        return None
    try:
        markdown, figures = draw()
        return write_report(directory, title, markdown, figures, game=game)
    # Whatever a chart library or a disk raises, the games are finished and must be kept.
    except Exception as exc:
        reason = (str(exc).splitlines() or [""])[0][:200]
        print(
            f"flipgames: warning: the report in {directory} failed ({type(exc).__name__}: "
            f"{reason}); the results are kept in {kept}",
            file=sys.stderr,
        )
        return None


def check_report_folder(directory: Path) -> None:
    """Fail before any work (one line) if ``directory`` cannot hold a report, or if the
    charting library is missing."""
    if directory.exists() and not directory.is_dir():
        raise FlipgamesError(f"--report {quote_path(directory)} is a file: name a folder")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise FlipgamesError(
            "--report needs matplotlib (the 'report' extra): run pip install -e '.[report]' "
            "in the flipgames repository folder"
        ) from None
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FlipgamesError(
            f"--report {quote_path(directory)}: cannot create the folder: {exc.strerror or exc}"
        ) from None


# --- charts --------------------------------------------------------------------------------


def new_figure(width: float = 6.4, height: float = 3.6) -> Figure:
    """An empty figure drawn by Agg, without pyplot (no display, no global figure list)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def rates_chart(
    labels: list[str],
    rates: list[float],
    intervals: list[tuple[float, float]],
    title: str,
    xlabel: str = "share of games (bars: 95% Wilson interval)",
) -> Figure:
    """Horizontal bars of rates in [0, 1] with their intervals as error bars."""
    figure = new_figure(6.4, 0.6 + 0.45 * len(labels))
    axes = figure.add_subplot()
    # matplotlib refuses a negative error; an interval computed apart from its rate (a
    # shifted one, say) may miss it by a rounding error.
    lows = [max(0.0, r - lo) for r, (lo, _) in zip(rates, intervals, strict=True)]
    highs = [max(0.0, hi - r) for r, (_, hi) in zip(rates, intervals, strict=True)]
    positions = list(range(len(labels)))
    axes.barh(positions, rates, xerr=[lows, highs], color="#4c72b0", capsize=4)
    axes.set_yticks(positions, labels)
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    axes.axvline(0.5, color="#888", linewidth=0.8, linestyle="--")
    axes.set_xlabel(xlabel)
    axes.set_title(title)
    return figure


def score_chart(
    labels: list[str], scores: list[float], intervals: list[tuple[float, float]], title: str
) -> Figure:
    """Scores as points with their intervals drawn, on an axis scaled to the data (so 0.541
    and 0.627 stand apart), with the fair 0.5 marked when it is in range."""
    figure = new_figure(6.4, 0.9 + 0.45 * len(labels))
    axes = figure.add_subplot()
    positions = list(range(len(labels)))
    lows = [max(0.0, s - lo) for s, (lo, _) in zip(scores, intervals, strict=True)]
    highs = [max(0.0, hi - s) for s, (_, hi) in zip(scores, intervals, strict=True)]
    axes.errorbar(
        scores, positions, xerr=[lows, highs], fmt="o", color="#4c72b0", capsize=5, elinewidth=2
    )
    left = min(lo for lo, _ in intervals)
    right = max(hi for _, hi in intervals)
    pad = max(0.01, 0.1 * (right - left))
    axes.set_xlim(max(0.0, left - pad), min(1.0, right + pad))
    if left - pad <= 0.5 <= right + pad:
        axes.axvline(0.5, color="#888", linewidth=0.8, linestyle="--")
    axes.set_yticks(positions, labels)
    axes.invert_yaxis()
    axes.set_xlabel("first-player score (a draw half a win; bars: 95% Wilson interval)")
    axes.set_title(title)
    return figure


def histogram_chart(histogram: list[tuple[int, int]], title: str, xlabel: str) -> Figure:
    """Bars of counts per value (a histogram already counted)."""
    figure = new_figure()
    axes = figure.add_subplot()
    axes.bar([v for v, _ in histogram], [c for _, c in histogram], width=0.9, color="#55a868")
    axes.set_xlabel(xlabel)
    axes.set_ylabel("games")
    axes.set_title(title)
    return figure


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _ci(interval: tuple[float, float]) -> str:
    return f"95% CI {_pct(interval[0])} to {_pct(interval[1])}"


def _count(count: int, total: int) -> str:
    return f"{count:,} ({_pct(rate(count, total))}, {_ci(rate_interval(count, total))})"


def simulation_text(result: SimulationResult) -> list[str]:
    """The simulation's findings as Markdown list items (also what the terminal shows)."""
    t = result.tally
    n = t.games
    a, b = result.agents
    options = ", ".join(f"{k}={v}" for k, v in result.options.items()) or "default rules"
    stopped = f" (interrupted: {result.requested:,} asked)" if result.interrupted else ""
    advantage = result.first_player_score() - 0.5
    low, high = wilson_interval(result.first_player_score(), n)
    lines = [
        f"- **Game**: {result.game} ({options}); A = {a}, B = {b}; seed {result.seed}; "
        f"{n:,} games{stopped}",
        f"- **First player wins** {_count(t.wins[0], n)}",
        f"- **Second player wins** {_count(t.wins[1], n)}",
        f"- **Draws** {_count(t.draws, n)}",
        f"- **First-player advantage** (score - 0.5, a draw half a win): {advantage:+.3f} "
        f"(95% CI {low - 0.5:+.3f} to {high - 0.5:+.3f})",
        f"- **A ({a}) wins** {_count(t.agent_wins[0], n)}",
        f"- **B ({b}) wins** {_count(t.agent_wins[1], n)}",
        f"- **Decided** (games with a winner; Ludii's completion; this share was called "
        f"decisiveness before, a name now kept for Ludii's metric below) {_count(t.decided, n)}",
        f"- **Drawishness** (draws by the rules, games stopped at the cap left out) "
        f"{_count(t.natural_draws, n)}",
        f"- **Length** in moves: mean {t.length_mean():.1f}, median {t.length_median():g}, "
        f"90th percentile {t.length_quantile(0.9)}, shortest {min(t.lengths, default=0)}, "
        f"longest {max(t.lengths, default=0)}",
        f"- **Branching factor**: {t.branching_mean():.2f} legal actions a move on average",
    ]
    lines += solved_text(result)
    if result.repetition_rule:
        lines.append(f"- **Repetition draws** {_count(t.repetition_draws, n)}")
    else:
        lines.append("- **Repetition draws**: not available (the rules have no repetition draw)")
    lines.append(
        f"- **Capped games** (stopped at {result.cap:,} actions, counted as draws): {t.capped:,}"
    )
    if result.evaluation:
        lines.append(
            f"- **Lead changes** (by the game's evaluation): "
            f"{rate(t.lead_changes, t.lead_games):.2f} a game; at least one in "
            f"{_count(t.lead_changed_games, t.lead_games)} of games"
        )
    else:
        lines.append("- **Lead changes**: not available (the game has no evaluation)")
    lines.append(
        f"- **Seconds per move**: A {t.seconds_per_move(0) * 1000:.2f} ms, "
        f"B {t.seconds_per_move(1) * 1000:.2f} ms ({result.seconds:.1f} s in all)"
    )
    return lines + metrics_text(result)


def solved_text(result: SimulationResult) -> list[str]:
    """The solved value beside the games, and a warning per figure the games contradict
    (:func:`flipgames.lab.simulate.solved_warnings`); nothing for a game not solved here."""
    solved = result.solved
    if solved is None:
        return []
    moves = solved["remoteness"]
    length = "" if moves is None else f"; perfect play lasts {moves} moves"
    lines = [
        f"- **Solved value** (perfect play from the start, for the first player): win "
        f"{_pct(float(solved['win'] or 0))}, draw {_pct(float(solved['draw'] or 0))}, loss "
        f"{_pct(float(solved['loss'] or 0))}{length}"
    ]
    lines += [f"- **Warning**: {warning}" for warning in result.warnings]
    return lines


def metrics_text(result: SimulationResult) -> list[str]:
    """Ludii's metrics (docs/lab-metrics.md) as Markdown list items: each one's mean over
    the games that had a value, or why it has none."""
    from flipgames.lab.metrics import LABELS, outcome_uniformity

    t = result.tally
    uniformity = outcome_uniformity(t.wins[0], t.wins[1], t.games)
    lines = [
        f"- **Ludii's metrics** (computed: {result.metric_set}; means over the games, "
        "evaluations by the game's own State.evaluate)",
        f"  - **Outcome uniformity** (1 - variance of a seat's result): "
        f"{'n/a' if uniformity is None else f'{uniformity:.3f}'}",
    ]
    for name, entry in result.metrics_json().items():
        label, _, meaning = LABELS[name]
        value = entry["value"]
        if isinstance(value, float):
            lines.append(f"  - **{label}** ({meaning}): {value:.3f} ({entry['games']:,} games)")
        else:
            lines.append(f"  - **{label}**: not applicable ({entry['not_applicable']})")
    return lines


def simulation_figures(result: SimulationResult) -> dict[str, Figure]:
    """Win rates with intervals, the length histogram and the branching factor by ply."""
    t = result.tally
    n = t.games
    a, b = result.agents
    counts = [
        ("first player wins", t.wins[0]),
        ("second player wins", t.wins[1]),
        ("draws", t.draws),
        (f"A ({a}) wins", t.agent_wins[0]),
        (f"B ({b}) wins", t.agent_wins[1]),
    ]
    return {
        "win-rates": rates_chart(
            [label for label, _ in counts],
            [rate(c, n) for _, c in counts],
            [rate_interval(c, n) for _, c in counts],
            f"{result.game}: results",
        ),
        "lengths": histogram_chart(
            sorted(t.lengths.items()), f"{result.game}: game length", "moves"
        ),
        "branching": branching_chart(
            t.branching_by_ply(), list(t.branching_count), f"{result.game}: branching factor by ply"
        ),
    }


def tail_start(counts: list[int]) -> int:
    """The first move number (from 0) reached by too few games for a steady mean: fewer
    than 5% of the games, and never fewer than 5 games.

    >>> tail_start([100, 100, 40, 4, 1]), tail_start([3, 3]), tail_start([10, 10])
    (3, 0, 2)
    """
    least = max(5, math.ceil(0.05 * (counts[0] if counts else 0)))
    return next((ply for ply, count in enumerate(counts) if count < least), len(counts))


def branching_chart(means: list[float], counts: list[int], title: str) -> Figure:
    """Mean legal actions by move number over the games that reached it, the number of
    those games as grey bars (right axis), and the noisy tail (moves reached by too few
    games, :func:`tail_start`) cut off with a note saying so."""
    figure = new_figure()
    axes = figure.add_subplot()
    cut = tail_start(counts)
    shown = range(1, cut + 1)
    games = axes.twinx()
    games.bar(shown, counts[:cut], width=0.8, color="#dddddd", zorder=0)
    games.set_ylabel("games that got there")
    axes.set_zorder(games.get_zorder() + 1)
    axes.patch.set_visible(False)
    # Markers only while they stay apart; a long game is a line.
    marker = "o" if cut <= 60 else None
    axes.plot(shown, means[:cut], marker=marker, markersize=3, color="#c44e52")
    axes.set_ylim(bottom=0)
    axes.set_ylabel("mean legal actions")
    dropped = len(counts) - cut
    note = f"; moves {cut + 1}-{len(counts)} (too few games) cut" if dropped else ""
    axes.set_xlabel(f"move number{note}")
    axes.set_title(title)
    return figure


def simulation_markdown(result: SimulationResult) -> str:
    """The Markdown of a simulation's report."""
    a, b = result.agents
    return "\n".join(
        [
            f"# {result.game}: {a} against {b}, {result.games:,} games",
            "",
            *(
                ["> **These agents contradict the solved value**: see the warnings below.", ""]
                if result.warnings
                else []
            ),
            *simulation_text(result),
            "",
            "Seats alternate (A moves first in even-numbered games), so the first-player "
            "figures do not favour the stronger agent. Intervals are 95% Wilson score "
            "intervals; the first-player advantage counts a draw as half a win.",
            "",
            "![Results with 95% intervals](win-rates.png)",
            "",
            "![Game length](lengths.png)",
            "",
            "![Branching factor by ply](branching.png)",
            "",
        ]
    )
