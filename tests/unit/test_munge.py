"""The cluster's one MUNGE key: the site's key as munged takes it, and where a run takes the key from without
splitting the cluster (hosts with different keys stop authenticating each other: nodes DOWN, their jobs lost)."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.hosts import item_values
from ansible_collections.gpucluster.cluster.plugins.filter.munge import (
    munge_key_errors,
    munge_key_plan,
    munge_reference_host,
)

KEY = bytes(range(64))
KEY_B64 = base64.b64encode(KEY).decode()
SHA = hashlib.sha256(KEY).hexdigest()
OTHER = hashlib.sha256(b"another key" * 8).hexdigest()
HOSTS = ["ctl01", "ctl02", "dbd01", "gpu01", "gpu02"]
CONTROLLERS = ["ctl01", "ctl02"]


def stats(**shas: str) -> dict[str, Any]:
    """stat's registered loop results as item_values gives them to the plan (host -> stat), from host -> the key's
    sha256 ('' where the host has no key)."""
    results = [
        {"item": host, "stat": {"exists": bool(sha), **({"checksum": sha} if sha else {})}}
        for host, sha in shas.items()
    ]
    return item_values(results, "stat", {})


def test_the_site_key_is_base64_of_at_least_32_bytes_and_never_shown() -> None:
    assert munge_key_errors("") == []
    assert munge_key_errors(KEY_B64) == []
    wrapped = base64.encodebytes(bytes(range(256)) * 4).decode()  # `base64` wraps at 76 columns
    assert "\n" in wrapped and munge_key_errors(wrapped) == []
    (short,) = munge_key_errors(base64.b64encode(b"x" * 31).decode())
    assert short.startswith("munge_key_b64 decodes to 31 bytes; munged refuses a key under 32 bytes"), short
    (garbled,) = munge_key_errors("not*base64!")
    assert garbled.startswith("munge_key_b64 is not base64 (the key is not shown)"), garbled
    assert "not*base64" not in garbled


@pytest.mark.parametrize(
    ("play", "expected"),
    [
        (HOSTS, "ctl02"),  # every host: another controller
        (["gpu01"], "ctl01"),  # the key host left out: its key is the cluster's
        (["ctl01"], "ctl02"),  # the key host alone: a controller left out
        (["ctl01", "ctl02"], "dbd01"),  # both controllers: the first host left out
        (["ctl01", "ctl02", "dbd01", "gpu01"], "gpu02"),
    ],
)
def test_the_host_asked_beside_the_key_host_is_one_a_limited_run_leaves_out(play: list[str], expected: str) -> None:
    assert munge_reference_host(HOSTS, play, "ctl01", CONTROLLERS) == expected


def test_a_lone_key_host_asks_no_other() -> None:
    assert munge_reference_host(["ctl01"], ["ctl01"], "ctl01", ["ctl01"]) == ""


def test_a_new_cluster_makes_its_key_once_on_the_key_host() -> None:
    assert munge_key_plan("", "ctl01", stats(ctl01="", ctl02=""), "ctl02", HOSTS) == {
        "source": "ctl01",
        "generate": True,
        "problems": [],
    }


def test_the_key_hosts_key_goes_to_every_host() -> None:
    plan = munge_key_plan("", "ctl01", stats(ctl01=SHA, ctl02=SHA), "ctl02", HOSTS)
    assert plan == {"source": "ctl01", "generate": False, "problems": []}
    # a run over every host mends a split: every host gets the key host's key
    assert munge_key_plan("", "ctl01", stats(ctl01=SHA, ctl02=OTHER), "ctl02", HOSTS)["problems"] == []


def test_a_reinstalled_key_host_takes_the_clusters_key_instead_of_making_a_new_one() -> None:
    """The first controller re-installed and deployed alone (--limit ctl01): a new key there would cut it off from
    every slurmd; in a run over every host it would re-key the whole cluster."""
    for play in (["ctl01"], HOSTS):
        reference = munge_reference_host(HOSTS, play, "ctl01", CONTROLLERS)
        plan = munge_key_plan("", "ctl01", stats(ctl01="", **{reference: SHA}), reference, play)
        assert plan == {"source": reference, "generate": False, "problems": []}, play


def test_a_limited_run_that_would_split_the_keys_is_refused() -> None:
    play = ["gpu01"]
    (rotated,) = munge_key_plan(KEY_B64, "ctl01", stats(ctl01=OTHER), "ctl01", play)["problems"]
    assert rotated == (
        "munge_key_b64 is not the key ctl01 holds, and this run is limited to 1 host(s) (gpu01): they would hold "
        "another MUNGE key than the hosts left out, and Slurm between them would stop authenticating (nodes DOWN, "
        "their jobs lost). Rotate the key in a run over every host (no --limit), or give munge_key_b64 the key the "
        "cluster holds"
    )
    assert munge_key_plan(KEY_B64, "ctl01", stats(ctl01=SHA), "ctl01", play)["problems"] == []
    assert munge_key_plan(KEY_B64, "ctl01", stats(ctl01=OTHER, ctl02=OTHER), "ctl02", HOSTS)["problems"] == []
    (split,) = munge_key_plan("", "ctl01", stats(ctl01=SHA, ctl02=OTHER), "ctl02", ["ctl01"])["problems"]
    assert split.startswith("ctl01 (munge_key_host) holds another MUNGE key than ctl02, and this run is limited to 1")
    assert KEY_B64 not in rotated + split and SHA not in rotated + split


def test_the_key_host_is_a_host_of_the_inventory() -> None:
    """munge_key_host names where the role makes the key and reads it back for the others: one the run cannot reach
    would stop every host's munge after the roles before it."""
    hostvars = {"ctl01": {"group_names": ["controllers"]}, "gpu01": {"group_names": ["compute"]}, "localhost": {}}
    (wrong,) = munge_key_errors("", "ctl1", hostvars)
    assert "munge_key_host: 'ctl1' is not a host of this inventory" in wrong
    assert munge_key_errors("", "ctl01", hostvars) == []
    # (Ansible's hostvars answer for the controller's implicit localhost too, which is in no group)
    (controller,) = munge_key_errors("", "localhost", hostvars)
    assert "munge_key_host: 'localhost' is not a host of this inventory" in controller
