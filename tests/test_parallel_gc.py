"""parallel.few_collections raises the young-generation GC threshold for an import and puts the
process's thresholds back when the last import that raised it ends, however imports overlap
(the MCP server may run two in threads)."""
import gc

from gbrain.sync import parallel


def test_thresholds_come_back_after_overlapping_imports():
    before = gc.get_threshold()
    a, b = parallel.few_collections(), parallel.few_collections()
    a.__enter__()
    assert gc.get_threshold()[0] >= parallel.GC_YOUNG
    b.__enter__()
    a.__exit__(None, None, None)  # the first one ends while the second still runs
    assert gc.get_threshold()[0] >= parallel.GC_YOUNG
    b.__exit__(None, None, None)
    assert gc.get_threshold() == before


def test_thresholds_come_back_after_an_error():
    before = gc.get_threshold()
    try:
        with parallel.few_collections():
            raise RuntimeError("x")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before
