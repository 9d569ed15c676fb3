"""slug_problem screens a name with one regular expression: it must accept exactly the
characters _looks_like_something_else does (the rule), over every code point."""
import sys

from gbrain.page.slugs import _SOMETHING_ELSE, _looks_like_something_else, slug_problem
import pytest

pytestmark = pytest.mark.engine_free  # the same on both engines: runs in the SQLite run only (conftest)


def test_the_class_is_the_rule_over_every_code_point():
    differ = [cp for cp in range(sys.maxunicode + 1)
              if 0xD800 > cp or cp > 0xDFFF
              if bool(_SOMETHING_ELSE.fullmatch(chr(cp))) != _looks_like_something_else(chr(cp))]
    assert differ == []


def test_slug_problem_names_the_first_such_character():
    assert "U+202E" in slug_problem("notes/a\u202eb\x01")
    assert "U+0001" in slug_problem("notes/a\x01b\u202e")
    assert slug_problem("notes/a b: c#d") is None
