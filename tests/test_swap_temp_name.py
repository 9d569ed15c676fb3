"""The temp name sync's swap of two notes' names passes a page through (``SyncEngine._swap``) is
written by one builder and read back by one matcher, both in the page layer
(:func:`gbrain.page.slugs.swap_temp_name`, :func:`gbrain.page.slugs.swap_temp_of`): the history's
reading of a swap (``history.swap_detail``) depends on reading back exactly what sync wrote."""
from __future__ import annotations

import pytest

from gbrain.page.slugs import slug_for_path, swap_temp_name, swap_temp_of

pytestmark = pytest.mark.engine_free  # pure functions: the same on both engines


@pytest.mark.parametrize("n", [1, 2, 10, 999])
@pytest.mark.parametrize("stem", ["alpha", "people/Ana Lima", "notes/a (b)", "x (swapping names)", "x (swapping names 2)",
                                  "a.*+?[]{}|^$", "notes/v2", "notes/v 2", "x 10", "a ", "(", "caf\u00e9"])
def test_the_matcher_reads_back_what_the_builder_wrote(stem, n):
    path = swap_temp_name(stem, ".md", n)
    assert path == stem + (" (swapping names).md" if n == 1 else f" (swapping names {n}).md")
    assert swap_temp_of(slug_for_path(path)) == stem  # sync writes a path; the history holds its slug
    assert swap_temp_of(swap_temp_name(stem, "", n)) == stem


@pytest.mark.parametrize("name", ["alpha", "alpha (swapping names", "alpha (swapping names x)", "(swapping names)",
                                  "alpha (swapping names).md", "alpha (swapping names 2) copy", "alpha(swapping names)",
                                  # the builder's n-th try is plain ASCII digits, 2 and up, no leading zero
                                  "alpha (swapping names 1)", "alpha (swapping names 0)", "alpha (swapping names 02)",
                                  "alpha (swapping names \u0663)", "alpha (swapping names \uff12)"])
def test_a_name_the_builder_never_writes_is_no_temp_name(name):
    assert swap_temp_of(name) is None


def test_a_decomposed_stem_reads_back_as_its_slug():
    """A note's path as macOS writes it (NFD) gives the temp path in NFD; the history holds its
    slug, NFC, and reads back the NFC stem (``café``), the name the history's moves hold."""
    import unicodedata

    stem = unicodedata.normalize("NFD", "notes/caf\u00e9 \u00e9")
    assert swap_temp_of(slug_for_path(swap_temp_name(stem, ".md", 2))) == unicodedata.normalize("NFC", stem) == slug_for_path(stem + ".md")
