"""Every page shares one base template (``templates/base.html``): the head and the site header
are written once, and a page gives only the blocks it changes (issue 25 item 1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flipgames.web import templating
from flipgames.web.settings import Settings

TEMPLATES = Settings(database_url="sqlite://").templates_dir
PAGES = sorted(path.name for path in TEMPLATES.glob("*.html") if path.name != templating.BASE)
BLOCK = re.compile(r"{% block (\w+) %}")


def test_the_pages_are_found() -> None:
    assert {"game.html", "lobby.html", "puzzle.html", "replay.html", "rules.html"} <= set(PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_a_page_extends_the_base_with_blocks_the_base_has(name: str) -> None:
    page = (TEMPLATES / name).read_text(encoding="utf-8")
    assert page.startswith('{% extends "base.html" %}\n')
    base_blocks = set(BLOCK.findall((TEMPLATES / templating.BASE).read_text(encoding="utf-8")))
    # A misspelt block would be dropped without a word: the page's part would go missing.
    assert set(BLOCK.findall(page)) <= base_blocks
    for head in ("<!doctype", "<head>", 'class="site-header"', 'rel="icon"'):
        assert head not in page.lower(), head


@pytest.mark.parametrize("name", PAGES)
def test_a_rendered_page_has_the_head_and_header_once_and_no_template_tags(name: str) -> None:
    html = templating.render(TEMPLATES, name)
    assert html.startswith("<!doctype html>")
    assert html.count('<header class="site-header">') == 1
    assert html.count('href="/static/app.css"') == 1
    assert re.search(r"<title>[^<]+</title>", html)
    assert re.search(r'<body class="[^"]+">', html)
    assert "{%" not in html


def test_a_page_without_extends_is_served_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "plain.html").write_text("<p>{% block title %}kept{% endblock %}</p>")
    assert templating.render(tmp_path, "plain.html") == "<p>{% block title %}kept{% endblock %}</p>"


def test_text_filled_into_a_block_is_not_read_as_a_block() -> None:
    # A Lab report's text goes into "content": a block tag in it stays text.
    base = "<main>{% block content %}{% endblock %}</main><p>{% block nav %}x{% endblock %}</p>"
    filled = templating.fill(base, {"content": "{% block nav %}y{% endblock %}"})
    assert filled == "<main>{% block nav %}y{% endblock %}</main><p>x</p>"
