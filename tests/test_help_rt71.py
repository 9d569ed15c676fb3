"""Help texts a newcomer reads (trial 71, review rt71): `query`'s title says what it does (keywords
and meaning fused), `config --help` lists the keys (from where they are defined), `verify --help`
says what it checks in a user's words."""
from __future__ import annotations

import pytest
from conftest import gbrain_in_process as gbrain

from gbrain import operations as ops

pytestmark = pytest.mark.engine_free


def test_query_is_not_called_semantic_search_alone():
    o = ops.REGISTRY["query"]
    assert "hybrid" in o.title.lower() and not o.description.startswith("Semantic search"), (o.title, o.description[:40])


def test_config_help_lists_every_settable_key():
    from gbrain.core.brain import SETTABLE_CONFIG

    for args in (("config", "--help"), ("config", "set", "--help")):
        out = gbrain(*args).stdout.decode()
        flat = " ".join(out.replace("│", " ").split())
        missing = [k for k in SETTABLE_CONFIG if k not in flat]
        assert not missing, (args, missing)


def test_verify_help_reads_as_what_it_checks_not_internals():
    out = " ".join(gbrain("verify", "--help").stdout.decode().replace("│", " ").split())
    for internal in ("quick_check", "integrity_check", "derived rows", "re-parsed"):
        assert internal not in out.split("Options")[0], internal
    assert "--deep" in out and "changed" in out
