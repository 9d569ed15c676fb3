"""Pages written by Obsidian's community plugins (trial 27): gbrain's own writes must land where
the plugin keeps them. The Excalidraw plugin regenerates everything of a drawing note
(``X.excalidraw.md``, frontmatter ``excalidraw-plugin``) from its ``# Excalidraw Data`` (older:
``# Text Elements``) section on, at its next save: only the text above that section is the
note's own. A link ``link`` appended, or a timeline ``timeline-add`` made, after the drawing
data was dropped by the plugin's next save in Obsidian."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain
from gbrain.errors import BadInput

DATA = ("# Text Elements\nBox about [[Bob]] ^abc123\n\n"
        "%%\n# Drawing\n```compressed-json\nN4KAkARALgngDgUwgLgAQQQDwMYEMA2AlgCYBOuA7hADTgQBuCpAzoQPYB2KqATLZMzYBXUtiRoIACyhQ4zZAHoFAc0\n```\n%%\n")
NEW_DATA = ("# Excalidraw Data\n\n## Text Elements\nBox about [[Bob]] ^abc123\n\n"
            "%%\n## Drawing\n```compressed-json\nN4KAkARALgngDgUwgLgAQQQDwMYEMA2AlgCYBOuA7hA\n```\n%%\n")
HEAD = "---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\n==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==\n"


@pytest.mark.parametrize("data", [DATA, NEW_DATA], ids=["text-elements", "excalidraw-data"])
def test_link_on_a_drawing_goes_above_its_drawing_data(db_path, data):
    with Brain.open(db_path, create=True) as b:
        b.put("Bob", "Bob.\n")
        b.put("Ann", "Ann.\n")
        b.put("Excalidraw/Drawing 1.excalidraw", HEAD + "\n\n" + data)
        b.link("Excalidraw/Drawing 1.excalidraw", "Ann")
        text = b.get_text("Excalidraw/Drawing 1.excalidraw")
        assert text == HEAD + "\n[[Ann]]\n\n\n" + data
        assert {l["to_slug"] for l in b.links("Excalidraw/Drawing 1.excalidraw")} == {"Bob", "Ann"}


def test_a_drawing_without_a_header_line_gets_the_link_above_the_data(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("Ann", "Ann.\n")
        b.put("d.excalidraw", "---\nexcalidraw-plugin: parsed\n---\n" + NEW_DATA)
        b.link("d.excalidraw", "Ann")
        assert b.get_text("d.excalidraw") == "---\nexcalidraw-plugin: parsed\n---\n[[Ann]]\n\n" + NEW_DATA


def test_a_page_that_only_mentions_the_heading_is_no_drawing(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("Ann", "Ann.\n")
        b.put("howto", "# How to\n\n# Text Elements\nthe plugin's section\n")
        b.link("howto", "Ann")
        assert b.get_text("howto") == "# How to\n\n# Text Elements\nthe plugin's section\n\n[Ann](Ann.md)\n"


def test_timeline_add_on_a_drawing_is_refused_and_nothing_written(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("d.excalidraw", HEAD + "\n" + DATA)
        before = b.get_text("d.excalidraw")
        with pytest.raises(BadInput, match="Excalidraw"):
            b.timeline_add("d.excalidraw", "2026-12-04", "drew it")
        assert b.get_text("d.excalidraw") == before


BLOB = "N4KAkARALgngDgUwgLgAQQQDwMYEMA2AlgCYBOuA7hADTgQBuCpAzoQPYB2KqATLZMzYBXUtiRoIACyhQ4zZAHoFAc0"


@pytest.mark.engine_free
def test_obsidian_comment_blocks_are_not_embedded():
    """A ``%% … %%`` comment block is hidden text, as an HTML comment is (which chunking drops
    already): an Excalidraw drawing note keeps its whole drawing (kilobytes of compressed JSON)
    in one, and every drawing gave dozens of chunks of base64 to embed, under a '## Drawing'
    section of their own. A ``%%`` inside fenced code (Jupyter's ``%%time``) is code, kept."""
    from gbrain.search.chunking import chunk_page, model_chunks

    body = ("==⚠  Switch to EXCALIDRAW VIEW ⚠==\n\nMy notes on the architecture.\n\n# Excalidraw Data\n\n## Text Elements\n"
            "Box about [[Bob]] ^abc123\n\n%%\n## Drawing\n```compressed-json\n" + "\n\n".join([BLOB] * 40) + "\n```\n%%\n")
    for chunks in (chunk_page("Drawing 1", body), model_chunks("Drawing 1", body, max_tokens=220)):
        text = "\n".join(c.text for c in chunks)
        assert BLOB not in text and "Drawing 1 — Drawing" not in text
        assert "My notes on the architecture." in text and "Box about Bob ^abc123" in text
    code = "Cells:\n\n```python\n%%time\nrun()\n```\n\nbetween\n\n```python\n%%bash\nls\n```\n"
    assert "between" in chunk_page("Nb", code)[0].text and "%%time" in chunk_page("Nb", code)[0].text


@pytest.mark.engine_free
def test_the_chunking_version_moved_so_embedded_pages_are_cut_again():
    from gbrain.search.embeddings import MINILM_MODEL, chunking_version

    assert chunking_version(MINILM_MODEL) >= 3 and chunking_version("openai:text-embedding-3-small") == 2
