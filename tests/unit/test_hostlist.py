"""Folding and expansion through ClusterShell, as Slurm reads them."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import (
    HostlistError,
    _fold,
    expand,
    fold,
    fold_chunks,
    holds,
    padding_collisions,
)
from ClusterShell.NodeSet import NodeSet
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("names", "folded"),
    [
        ([], ""),
        (["gpu01"], "gpu01"),
        (["gpu01", "gpu02", "gpu03"], "gpu[01-03]"),
        (["gpu001", "gpu002", "gpu010"], "gpu[001-002,010]"),
        (["a-gpu1", "a-gpu2", "b-gpu1"], "a-gpu[1-2],b-gpu1"),
        (["r1-n01", "r1-n02", "r2-n01", "r2-n02"], "r[1-2]-n[01-02]"),
        (["login", "gpu1"], "gpu1,login"),
    ],
)
def test_fold(names: list[str], folded: str) -> None:
    assert fold(names) == folded


def test_fold_then_expand_round_trips() -> None:
    names = [f"node{i:04d}" for i in range(1, 2000, 3)] + ["x1", "y"]
    assert sorted(expand(fold(names))) == sorted(names)


def test_expand_accepts_lists_and_rejects_garbage() -> None:
    assert expand(["a[1-2]", "b1"]) == ["a1", "a2", "b1"]
    with pytest.raises(HostlistError):
        expand("gpu[01-")


def test_fold_chunks_keep_each_stanza_short() -> None:
    names = [f"n{i}" for i in range(0, 400, 2)]  # no two adjacent: a long comma list
    chunks = fold_chunks(names, max_chars=60)
    assert len(chunks) > 1
    assert all(len(chunk) <= 60 for chunk in chunks)
    assert sorted(h for chunk in chunks for h in expand(chunk)) == sorted(names)


def test_padding_collisions() -> None:
    assert padding_collisions(["gpu1", "gpu01", "gpu2"]) == [("gpu1", "gpu01")]
    assert padding_collisions(["Node1", "node1"]) == [("Node1", "node1")]
    assert padding_collisions(["gpu1", "gpu10"]) == []


def test_fast_fold_matches_clustershell_fromlist() -> None:
    import random

    from ClusterShell.NodeSet import NodeSet

    rng = random.Random(7)
    for _ in range(200):
        names = {
            rng.choice(["gpu", "a-gpu", "r1-n", "r2-n", "node", "x"])
            + (f"{rng.randint(0, 300):0{rng.choice([1, 2, 3])}d}" if rng.random() < 0.9 else "")
            + rng.choice(["", "", "-ib", "a"])
            for _ in range(rng.randint(1, 60))
        }
        assert fold(sorted(names)) == str(NodeSet.fromlist(sorted(names)))


def test_holds_tests_membership_of_a_folded_expression_without_expanding() -> None:
    folded = fold([f"gpu{n:04d}" for n in range(1, 12801)] + ["login01", "rack1-node7"])
    assert holds(folded, "gpu0001") and holds(folded, "gpu12800") and holds(folded, "rack1-node7")
    assert not holds(folded, "gpu12801") and not holds(folded, "gpu1") and not holds(folded, "login02")
    assert not holds("", "gpu0001")


_PIECES = st.sampled_from(["gpu", "r1n", "r2-n", "a.b", "x", "n-", "Gpu", "node0", "c7-"])
_NUMBERS = st.integers(min_value=0, max_value=130)
_NAMES = st.lists(
    st.builds(
        lambda prefix, number, width, suffix: f"{prefix}{number:0{width}d}{suffix}",
        _PIECES,
        _NUMBERS,
        st.integers(min_value=1, max_value=5),
        st.sampled_from(["", "", "", "-ib", "a"]),
    )
    | st.sampled_from(["login", "gpu", "ctl-a"]),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(_NAMES)
def test_fold_is_clustershells_fold(names: list[str]) -> None:
    """The fold of names taken by pattern (one RangeSet per prefix and suffix, printed directly where there is one)
    is what ClusterShell's NodeSet prints for the same names, whatever the padding, prefixes and suffixes."""
    _fold.cache_clear()
    assert fold(names) == (str(NodeSet.fromlist(names)) if names else "")
