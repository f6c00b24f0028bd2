"""The arcade's Lab page: the designer's reports stored on this server, per game.

``flipgames serve --reports DIR`` (default: ``reports`` in the data folder, see
:func:`flipgames.web.settings.data_dir`) serves every report folder below DIR, i.e. every
folder holding a ``report.md`` that ``flipgames simulate|compare ... --report DIR/NAME``
wrote (:func:`flipgames.lab.report.write_report`):

* ``/lab``: the reports grouped by game (the game ``report.json`` names, else a game name in
  the folder's path, else "Other"), newest first;
* ``/lab/report/PATH``: one report, its Markdown rendered with raw HTML escaped (a report
  folder cannot put markup or script into the page) and its charts loaded from
  ``/lab/files/PATH/NAME.png``;
* ``/lab/download/PATH``: the report's self-contained ``index.html`` as a download.

PATH is the report folder relative to DIR. Only plain names (letters, digits, ``.``, ``-``,
``_``; no ``..``, no hidden names) are accepted, and the resolved file must lie inside DIR, so
no request reaches a file outside the reports (symbolic links leading out are refused too).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from flipgames.core.registry import game_class, game_names
from flipgames.web import templating

#: Pages, not API: left out of the OpenAPI document as the arcade's other pages are.
router = APIRouter(include_in_schema=False)

#: One folder or file name in a report path.
_SEGMENT = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
#: Image links in a report's Markdown that point at a file of the report folder.
_IMAGE = re.compile(r"(!\[[^\]]*\]\()([A-Za-z0-9_-]+\.(?:png|svg))\)")
#: How deep below the reports folder reports are looked for, and how many are listed.
MAX_DEPTH = 4
MAX_REPORTS = 500
_TYPES = {".png": "image/png", ".svg": "image/svg+xml"}


@dataclass(frozen=True)
class StoredReport:
    """A report folder below the reports folder."""

    path: str
    title: str
    game: str | None
    written: str


def _game_of(meta_game: object, path: str, title: str) -> str | None:
    names = game_names()
    if isinstance(meta_game, str) and meta_game in names:
        return meta_game
    for part in reversed(path.split("/")):
        if part in names:
            return part
    for name in sorted(names, key=len, reverse=True):  # flipflop-3x3 before flipflop
        if title.startswith(name):
            return name
    return None


def find_reports(root: Path) -> list[StoredReport]:
    """Every report folder below ``root`` (at most :data:`MAX_DEPTH` deep), newest first."""
    found: list[StoredReport] = []
    if not root.is_dir():
        return found
    top = root.resolve()
    folders = [top]
    for _ in range(MAX_DEPTH + 1):
        deeper = []
        for folder in folders:
            if folder != top and _report_file(top, folder, "report.md") is not None:
                found.append(_describe(top, folder))
            try:
                children = sorted(folder.iterdir())
            except OSError:
                continue
            deeper += [
                c for c in children if _SEGMENT.fullmatch(c.name) and c.is_dir() and _inside(top, c)
            ]
        folders = deeper
        if len(found) >= MAX_REPORTS:
            break
    found.sort(key=lambda r: (r.written, r.path), reverse=True)
    return found[:MAX_REPORTS]


def _inside(top: Path, path: Path) -> bool:
    return path.resolve().is_relative_to(top)


def _describe(top: Path, folder: Path) -> StoredReport:
    path = folder.relative_to(top).as_posix()
    meta: dict[str, object] = {}
    stored = _report_file(top, folder, "report.json")
    try:
        loaded = json.loads(stored.read_text(encoding="utf-8")) if stored else None
        if isinstance(loaded, dict):
            meta = loaded
    except (OSError, ValueError):
        pass
    title = meta.get("title")
    if not isinstance(title, str) or not title:
        title = path
    written = meta.get("written")
    return StoredReport(
        path,
        title,
        _game_of(meta.get("game"), path, title),
        written if isinstance(written, str) else "",
    )


def safe_path(root: Path, path: str) -> Path | None:
    """``root / path`` if ``path`` is plain names only and stays inside ``root``, else None.

    >>> safe_path(Path("/srv/reports"), "../etc/passwd") is None
    True
    >>> safe_path(Path("/srv/reports"), "flipflop/run-1") == Path("/srv/reports/flipflop/run-1")
    True
    """
    parts = path.split("/")
    if not path or not all(_SEGMENT.fullmatch(part) and ".." not in part for part in parts):
        return None
    target = root.joinpath(*parts)
    if not target.resolve().is_relative_to(root.resolve()):
        return None
    return target


def _report_file(root: Path, folder: Path | None, name: str) -> Path | None:
    """``folder / name`` if it is a file whose real path lies inside ``root``: a link in a
    report folder (``report.md -> /etc/passwd``) must not serve what it points at."""
    if folder is None:
        return None
    target = folder / name
    if not target.is_file() or not _inside(root.resolve(), target):
        return None
    return target


def _root(request: Request) -> Path:
    reports: Path = request.app.state.settings.reports_dir
    return reports


def _page(request: Request, title: str, body: str) -> HTMLResponse:
    """The arcade's base template around a Lab page's ``body`` (already escaped HTML)."""
    templates: Path = request.app.state.settings.templates_dir
    shown = html.escape(title)
    blocks = {
        "title": f"{shown} · flipgames arcade",
        "head": '  <link rel="stylesheet" href="/static/lab.css">',
        "body_class": "lab",
        "heading": f"    <h1>{shown}</h1>",
        "nav": '<a href="/">Lobby</a><a href="/lab">Lab</a>',
        "content": f'  <main class="lab-page">\n{body}\n  </main>',
    }
    return HTMLResponse(templating.render_base(templates, blocks))


def _missing(request: Request, message: str) -> HTMLResponse:
    response = _page(request, "Not found", f'<p class="lab-card">{html.escape(message)}</p>')
    response.status_code = 404
    return response


@router.get("/lab")
def lab_index(request: Request) -> HTMLResponse:
    reports = find_reports(_root(request))
    if not reports:
        body = (
            '<section class="lab-card"><h2>No reports yet</h2>'
            "<p>Write one into this server's reports folder, for example:</p>"
            "<pre><code>flipgames simulate flipflop-3x3 --agents easy,medium --games 1000 "
            f"--report {html.escape(str(_root(request) / 'flipflop-3x3-easy-medium'))}"
            "</code></pre></section>"
        )
        return _page(request, "Lab", body)
    sections = []
    order = {name: number for number, name in enumerate(game_names())}
    groups: dict[str | None, list[StoredReport]] = {}
    for report in reports:
        groups.setdefault(report.game, []).append(report)
    for game in sorted(groups, key=lambda g: order.get(g, len(order)) if g else len(order)):
        heading = game_class(game).title if game else "Other"
        items = "".join(
            f'<li><a href="/lab/report/{html.escape(r.path)}">{html.escape(r.title)}</a>'
            f'<span class="muted"> {html.escape(r.written)}</span></li>'
            for r in groups[game]
        )
        sections.append(
            f'<section class="lab-card" aria-label="{html.escape(heading)}">'
            f"<h2>{html.escape(heading)}</h2><ul>{items}</ul></section>"
        )
    intro = (
        '<p class="lab-intro">Reports from the designer\'s lab: self-play simulations and '
        "option comparisons (see docs/lab.md).</p>"
    )
    return _page(request, "Lab", intro + "".join(sections))


@router.get("/lab/report/{path:path}")
def lab_report(request: Request, path: str) -> HTMLResponse:
    from flipgames.lab.report import markdown_to_html

    root = _root(request)
    folder = safe_path(root, path)
    markdown = _report_file(root, folder, "report.md")
    if folder is None or markdown is None:
        return _missing(request, "there is no such report")
    text = markdown.read_text(encoding="utf-8", errors="replace")
    linked = _IMAGE.sub(lambda m: f"{m.group(1)}/lab/files/{path}/{m.group(2)})", text)
    report = _describe(root.resolve(), folder.resolve())
    body = (
        f'<p class="lab-intro"><a href="/lab">All reports</a> · '
        f'<a href="/lab/download/{html.escape(path)}" download>Download the HTML report</a></p>'
        f'<article class="lab-card lab-report">{markdown_to_html(linked)}</article>'
    )
    return _page(request, report.title, body)


@router.get("/lab/files/{path:path}")
def lab_file(request: Request, path: str) -> Response:
    target = safe_path(_root(request), path)
    if target is None or target.suffix not in _TYPES or not target.is_file():
        return _missing(request, "there is no such file")
    return FileResponse(target, media_type=_TYPES[target.suffix])


@router.get("/lab/download/{path:path}")
def lab_download(request: Request, path: str) -> Response:
    root = _root(request)
    folder = safe_path(root, path)
    page = _report_file(root, folder, "index.html")
    if folder is None or page is None:
        return _missing(request, "there is no such report")
    return FileResponse(page, media_type="text/html", filename=folder.name + ".html")
