"""The UI's catalogues (``static/i18n/en.js``, ``ja.js``): the same keys in both, the same
``{name}`` places in both, every key a page script or template uses present, and each
template's English words the catalogue's (the template shows them before its script runs)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "src" / "flipgames" / "web"
STATIC = WEB / "static"
LANGUAGES = ("en", "ja")

#: A key passed to t() in a script: t("game.resign") or t("status.to_move", {...}).
T_CALL = re.compile(r"""\bt\(\s*["']([\w.]+)["']""")
#: A key in a template: data-i18n="key", data-i18n-aria-label="key", data-i18n-title="key".
MARKER = re.compile(r'data-i18n(?:-[\w-]+)?="([\w.]+)"')
#: A marked element's English words in a template: data-i18n="key" ...>words<
MARKED_TEXT = re.compile(r'data-i18n="([\w.]+)"[^>]*>([^<]*)<')
PLACE = re.compile(r"\{(\w+)\}")


def catalogue(language: str) -> dict[str, str]:
    """A catalogue as the pages import it: a JSON object after ``export default``."""
    text = (STATIC / "i18n" / f"{language}.js").read_text(encoding="utf-8")
    body = text.split("\nexport default ", 1)[1].strip().removesuffix(";")
    words = json.loads(body)
    assert isinstance(words, dict)
    return words


def scripts() -> list[Path]:
    return sorted(path for path in STATIC.rglob("*.js") if path.parent.name != "i18n")


def templates() -> list[Path]:
    return sorted((WEB / "templates").glob("*.html"))


def test_both_catalogues_have_the_same_keys_in_the_same_order() -> None:
    english, japanese = catalogue("en"), catalogue("ja")
    assert list(english) == list(japanese)
    assert len(english) > 100


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_words_are_empty_or_untranslated_placeholders(language: str) -> None:
    assert [key for key, words in catalogue(language).items() if not words.strip()] == []


def test_each_translation_has_the_english_places_for_values() -> None:
    english, japanese = catalogue("en"), catalogue("ja")
    differing = [
        key
        for key, words in english.items()
        if sorted(PLACE.findall(words)) != sorted(PLACE.findall(japanese[key]))
    ]
    assert differing == []


def test_every_key_a_script_uses_is_in_the_catalogue() -> None:
    keys = set(catalogue("en"))
    missing = [
        f"{path.relative_to(STATIC)}: {key}"
        for path in scripts()
        for key in T_CALL.findall(path.read_text(encoding="utf-8"))
        if key not in keys
    ]
    assert missing == []


def test_every_key_a_template_uses_is_in_the_catalogue() -> None:
    keys = set(catalogue("en"))
    missing = [
        f"{path.name}: {key}"
        for path in templates()
        for key in MARKER.findall(path.read_text(encoding="utf-8"))
        if key not in keys
    ]
    assert missing == []


def test_templates_show_the_catalogues_english_words() -> None:
    english = catalogue("en")
    differing = [
        f"{path.name}: {key}: {html.unescape(words)!r} != {english.get(key)!r}"
        for path in templates()
        for key, words in MARKED_TEXT.findall(path.read_text(encoding="utf-8"))
        if html.unescape(words) != english.get(key)
    ]
    assert differing == []


def test_the_scanners_find_keys() -> None:
    """The patterns above see the keys they are for (so an empty scan cannot pass)."""
    assert T_CALL.findall('x = t("game.resign"); y = t( "a.b", { n })') == ["game.resign", "a.b"]
    marked = '<b data-i18n="a.b">A</b><i data-i18n-aria-label="c.d">'
    assert MARKER.findall(marked) == ["a.b", "c.d"]
    used = {key for path in scripts() for key in T_CALL.findall(path.read_text(encoding="utf-8"))}
    assert {"status.your_move", "settings.notify_refused"} <= used
