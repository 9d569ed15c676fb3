"""`link` on a page whose compiled truth ends with a list of links (the llm-wiki trial: ollama's
`## 相关` list of `- [[x]] — text` items) adds the link as one more item of that list, with the
list's marker; it went in as a loose paragraph after the list before. Any other ending keeps the
paragraph."""
from __future__ import annotations

import pytest

from gbrain.core.brain import Brain


@pytest.mark.parametrize("marker", ["-", "*"])
def test_a_link_joins_the_link_list_the_page_ends_with(db_path, marker):
    with Brain.open(db_path, create=True) as b:
        b.put("tools/localai", "# LocalAI\n")
        b.put("tools/mistral", "# Mistral\n")
        b.put("tools/ollama", f"# Ollama\n\nRuns models.\n\n## Related\n\n{marker} [[localai]] — another local runner\n")
        b.link("tools/ollama", "tools/mistral", "runs Mistral models")
        assert b.get_text("tools/ollama") == (f"# Ollama\n\nRuns models.\n\n## Related\n\n{marker} [[localai]] — another local runner\n"
                                              f"{marker} [[mistral|Mistral]] — runs Mistral models\n")
        assert {l["to_slug"] for l in b.links("tools/ollama")} == {"tools/localai", "tools/mistral"}


def test_a_page_ending_otherwise_gets_the_link_as_a_paragraph(db_path):
    with Brain.open(db_path, create=True) as b:
        b.put("tools/mistral", "# Mistral\n")
        b.put("tools/plain", "# Plain\n\n- a list item with no link\n")
        b.link("tools/plain", "tools/mistral")
        assert b.get_text("tools/plain").endswith("- a list item with no link\n\n[Mistral](mistral.md)\n")
        b.put("tools/timeline", "# T\n\n- [x](mistral.md) in the body\n\n---\n\n- **2024-01-01** | met\n")
        b.link("tools/timeline", "tools/plain")
        assert b.get_text("tools/timeline") == "# T\n\n- [x](mistral.md) in the body\n- [Plain](plain.md)\n\n---\n\n- **2024-01-01** | met\n"


@pytest.mark.parametrize("ending", [
    "## Open Threads\n\n- CFO candidate [Priya](priya.md) to meet the board (due 2026-12-10, raised 2026-12-02)\n",
    "## Open Threads\n\n- [Priya](priya.md): send the data room (raised 2026-12-02)\n",
    "## Action Items\n\n- [ ] [Priya](priya.md): send the data room (due 2026-12-10)\n",
    "## State\n\n- Works with [Priya](priya.md) on the board deck\n",
])
def test_a_link_never_joins_open_threads_tasks_or_prose_items(db_path, ending):
    """An MCP agent trial (agent3): on a page made from the ingest skill's company template, whose
    compiled truth ends with `## Open Threads` holding an item with a link, `brain_link` added
    `- [Policy Seed 2025](…) — possible follow-on` as one more open thread (brain_threads then
    lists it as an unresolved item). Only a list of links (each item starting with its link, not a
    task, not under Open Threads) gets the link as an item; else it is the paragraph it was, above
    an Open Threads section the compiled truth ends with (trial 70: below its items it read as one)."""
    with Brain.open(db_path, create=True) as b:
        b.put("people/priya", "# Priya\n")
        b.put("deals/seed", "# Seed\n")
        text = "# Co\n\n> Summary.\n\n" + ending + "\n---\n\n- **2026-12-02** | meeting — met\n"
        b.put("companies/co", text)
        b.link("companies/co", "deals/seed", "possible follow-on")
        got = b.get_text("companies/co")
        if ending.startswith("## Open Threads"):  # above the section, not below its items (trial 70)
            assert got == text.replace("## Open Threads", "[Seed](../deals/seed.md) — possible follow-on\n\n## Open Threads"), got
        else:
            assert got == text.replace("\n\n---\n", "\n\n[Seed](../deals/seed.md) — possible follow-on\n\n---\n"), got
