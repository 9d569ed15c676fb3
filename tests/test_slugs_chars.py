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


def test_a_memory_url_is_told_to_drop_its_scheme(tmp_path):
    """An agent used to another memory server's `memory://people/ana` URLs (trial 48) was told
    "it has an empty, blank, '.' or '..' segment": true, and no help. Still refused; the error
    says the slug to give."""
    from gbrain.core.brain import Brain
    from gbrain import operations as ops
    from gbrain.errors import BadInput

    assert slug_problem("memory://people/ana-lima") == "it is a URL; a slug has no scheme: give people/ana-lima"
    assert "empty" in slug_problem("notes//x")  # a doubled slash without a scheme: as before
    with Brain.open(tmp_path / "b.db", create=True) as b:
        b.put("people/ana-lima", "# Ana\n")
        with pytest.raises(BadInput, match="give people/ana-lima"):
            ops.run("get", {"slug": "memory://people/ana-lima"}, brain=b)
