"""The pages' one base template: every page fills the blocks of ``templates/base.html``.

The arcade renders nothing per request into its pages (their scripts read the match id and
token from the address), so a full template engine would be a dependency for one feature:
inheritance. A page template opens with ``{% extends "base.html" %}`` and gives the blocks it
changes as ``{% block NAME %}...{% endblock %}``; a block it leaves out keeps the base's
default. The syntax is Jinja2's, so the files need no change if the arcade ever renders with
it. A template that extends nothing is served as it is. The Lab page, written in Python, fills
the same base with :func:`fill`.

>>> fill('<title>{% block title %}arcade{% endblock %}</title>{% block body %}{% endblock %}',
...      {"body": "<p>hi</p>"})
'<title>arcade</title><p>hi</p>'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

#: The base every page extends.
BASE = "base.html"

_BLOCK = re.compile(r"{% block (\w+) %}(.*?){% endblock %}", re.DOTALL)
_EXTENDS = re.compile(r'\A{% extends "([\w.-]+)" %}\n')


def fill(base: str, blocks: Mapping[str, str]) -> str:
    """``base`` with each block replaced by ``blocks[name]``, or by its default if absent."""
    return _BLOCK.sub(lambda block: blocks.get(block.group(1), block.group(2)), base)


def render(folder: Path, name: str) -> str:
    """The page ``folder / name``, its base's blocks filled (raises OSError if a file is missing).

    A block's text loses the line breaks at its two ends, so a page may open each block on a
    line of its own.
    """
    page = (folder / name).read_text(encoding="utf-8")
    extends = _EXTENDS.match(page)
    if extends is None:
        return page
    blocks = {block: text.strip("\n") for block, text in _BLOCK.findall(page)}
    return fill((folder / extends.group(1)).read_text(encoding="utf-8"), blocks)


def render_base(folder: Path, blocks: Mapping[str, str]) -> str:
    """The base template of ``folder`` with ``blocks``: a page built in Python (the Lab's)."""
    return fill((folder / BASE).read_text(encoding="utf-8"), blocks)
