"""accounting_accounts and accounting_users: an account tree with limits and coordinators, users per partition,
checked before any host is touched and turned into sacctmgr settings."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.accounting import (
    account_settings,
    accounting_accounts_in_order,
    accounting_coordinators,
    accounting_errors,
    user_settings,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.associations import (
    allow_accounts_errors,
    association_errors,
)

PARTITIONS = [{"name": "gpu"}, {"name": "scavenger"}]
QOS: dict[str, Any] = {"high": {}, "low": {}}
ACCOUNTS: dict[str, Any] = {
    "vision": {"parent": "research", "grp_tres": {"gres/gpu": 2}, "max_submit_jobs": 3, "coordinators": ["bob"]},
    "research": {"description": "research groups", "grp_tres_mins": "gres/gpu=6000", "qos": ["normal", "low"]},
}
USERS: dict[str, Any] = {
    "bob": {"account": "vision"},
    "carol": {"account": "vision", "partitions": ["gpu"], "max_jobs": 2},
}


def errors(accounts: dict[str, Any] | None = None, users: dict[str, Any] | None = None) -> list[str]:
    return accounting_errors(
        ACCOUNTS if accounts is None else accounts, USERS if users is None else users, QOS, PARTITIONS
    )


def test_a_tree_with_limits_coordinators_and_partitions_passes() -> None:
    assert errors() == []
    assert accounting_errors({}, {}, None, []) == []


def test_parents_come_before_their_children() -> None:
    order = [item["key"] for item in accounting_accounts_in_order(ACCOUNTS)]
    assert order == ["research", "vision"]
    deep = {"c": {"parent": "b"}, "b": {"parent": "a"}, "a": {}}
    assert [item["key"] for item in accounting_accounts_in_order(deep)] == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("accounts", "users", "message"),
    [
        (
            {**ACCOUNTS, "vision": {**ACCOUNTS["vision"], "grp_gpus": 2}},
            None,
            "accounting_accounts.vision: unknown setting grp_gpus",
        ),
        ({"vision": {"parent": "research"}}, {}, "accounting_accounts.vision: parent 'research' is not an account"),
        (
            {"a": {"parent": "b"}, "b": {"parent": "a"}},
            {},
            "accounting_accounts.a: its parents loop back to it (a -> b -> a)",
        ),
        (
            {**ACCOUNTS, "research": {"qos": ["gold"]}},
            None,
            "accounting_accounts.research: QOS 'gold' is not in cluster_qos",
        ),
        (
            {**ACCOUNTS, "vision": {"grp_tres": {"gpu": 2}}},
            None,
            "accounting_accounts.vision: grp_tres names 'gpu', which is not a TRES",
        ),
        (
            {**ACCOUNTS, "vision": {"grp_tres": "gres/gpu=two"}},
            None,
            "accounting_accounts.vision: grp_tres gives gres/gpu 'two'; give a whole number",
        ),
        ({**ACCOUNTS, "vision": {"max_jobs": "5"}}, None, "accounting_accounts.vision: max_jobs '5' is not a count"),
        ({**ACCOUNTS, "vision": {"max_jobs": -2}}, None, "accounting_accounts.vision: max_jobs -2 is not a count"),
        (
            {**ACCOUNTS, "vision": {"coordinators": ["dave"]}},
            None,
            "accounting_accounts.vision: coordinator 'dave' is not a user of accounting_users",
        ),
        ({"ML": {}}, {}, "accounting_accounts.ML: 'ML' is not an account name"),
        (
            {**ACCOUNTS, "vision": {"fairshare": "lots"}},
            None,
            "accounting_accounts.vision: fairshare 'lots' is not a share; give a whole number (e.g. 100) or parent",
        ),
        (
            None,
            {**USERS, "bob smith": {"account": "vision"}},
            "accounting_users.bob smith: 'bob smith' is not a login name sacctmgr takes",
        ),
        (
            None,
            {**USERS, "Bob@AD.example.org": {"account": "vision"}},
            "accounting_users.Bob@AD.example.org: slurmdbd keeps user names in lower case (without "
            "Parameters=PreserveCaseUser, which this toolkit does not set): sacctmgr would add 'bob@ad.example.org'",
        ),
        (None, {"carol": {"account": "nlp"}}, "accounting_users.carol: account 'nlp' is not in accounting_accounts"),
        (
            None,
            {**USERS, "carol": {"account": "vision", "partitions": ["cpu"]}},
            "accounting_users.carol: partition 'cpu' is not in cluster_partitions",
        ),
        (
            None,
            {**USERS, "carol": {"account": "vision", "maxjobs": 2}},
            "accounting_users.carol: unknown setting maxjobs",
        ),
        (None, {**USERS, "carol": {"accounts": ["vision"]}}, "accounting_users.carol: give its default account"),
        (
            None,
            {**USERS, "carol": {"account": "vision", "qos": ["gold"]}},
            "accounting_users.carol: QOS 'gold' is not in cluster_qos",
        ),
    ],
)
def test_each_mistake_is_named(accounts: dict[str, Any] | None, users: dict[str, Any] | None, message: str) -> None:
    found = errors(accounts, users)
    assert any(error.startswith(message) for error in found), found


def test_shares_and_login_names_sacctmgr_takes_pass() -> None:
    """The real sacctmgr (22.05, 26.05) takes fairshare=parent, -1 (none) and 0, and directory users' names (in lower
    case: it stores them so)."""
    accounts = {**ACCOUNTS, "vision": {"fairshare": "parent"}, "nlp": {"fairshare": -1}, "cv": {"fairshare": 0}}
    assert errors(accounts, {"bob@ad.example.org": {"account": "vision"}, "carol.b": {"account": "nlp"}}) == []


def test_a_limit_names_only_a_tres_the_cluster_tracks() -> None:
    """Given the node types and cluster_accounting, a limit on a TRES outside the built-in ones, gres/gpu (GPU nodes)
    and cluster_accounting.tres is refused: sacctmgr refuses it, and Slurm never enforces it."""
    typed = {**ACCOUNTS, "vision": {**ACCOUNTS["vision"], "grp_tres": {"gres/gpu:a100": 2}}}
    gpus = {"h100": {"gpu": {"type": "h100", "count": 8}}}
    refused = accounting_errors(typed, USERS, QOS, PARTITIONS, node_types=gpus, accounting={})
    assert refused == [
        "accounting_accounts.vision: grp_tres limits gres/gpu:a100, which this cluster does not track (sacctmgr "
        "refuses it, and a limit on an untracked TRES is never enforced); TRES tracked here: cpu, mem, energy, node, "
        "billing, fs/disk, vmem, pages, gres/gpu, gres/gpumem, gres/gpuutil; track another by adding it to "
        "cluster_accounting.tres"
    ]
    assert (
        accounting_errors(typed, USERS, QOS, PARTITIONS, node_types=gpus, accounting={"tres": ["gres/gpu:a100"]}) == []
    )
    # without GPU nodes, gres/gpu itself is not tracked
    assert accounting_errors(ACCOUNTS, USERS, QOS, PARTITIONS, node_types={"cpu": {}}, accounting={}) != []
    assert accounting_errors(ACCOUNTS, USERS, QOS, PARTITIONS, node_types=gpus, accounting={}) == []
    # gres/gpumem: tracked with gres/gpu by 24.11 (the default release) itself, not by 22.05
    memory = {**ACCOUNTS, "vision": {**ACCOUNTS["vision"], "grp_tres": {"gres/gpumem": 2}}}
    assert accounting_errors(memory, USERS, QOS, PARTITIONS, node_types=gpus, accounting={}) == []
    assert accounting_errors(memory, USERS, QOS, PARTITIONS, node_types=gpus, accounting={}, release="22.05") != []
    # without them, the names' form alone (as before)
    assert accounting_errors(typed, USERS, QOS, PARTITIONS) == []


def test_settings_for_sacctmgr() -> None:
    assert account_settings(ACCOUNTS["vision"]) == {"Parent": "research", "GrpTRES": "gres/gpu=2", "MaxSubmitJobs": 3}
    assert accounting_coordinators({**ACCOUNTS, "ml": {"coordinators": []}}) == [
        {"key": "vision", "value": ["bob"]},
        {"key": "ml", "value": []},
    ]
    assert account_settings({"grp_tres": {"gres/gpu": 2, "cpu": -1}}) == {"GrpTRES": "cpu=-1,gres/gpu=2"}
    assert user_settings(USERS["carol"]) == {"DefaultAccount": "vision", "Partitions": ["gpu"], "MaxJobs": 2}
    # an account without the key keeps the coordinators it has
    assert accounting_coordinators({"ml": {"description": "x"}}) == []


def test_a_partitions_allowed_accounts_are_declared_where_the_toolkit_keeps_them() -> None:
    assert allow_accounts_errors(ACCOUNTS, {"gpu": ["vision", "root"]}) == []
    assert allow_accounts_errors(ACCOUNTS, {"gpu": ["physics"]}) == [
        "cluster_partitions[gpu].allow_accounts: 'physics' is not in accounting_accounts (nor root); no one could "
        "submit through it - declare the account or fix the name"
    ]
    # no accounts declared: the site keeps them in slurmdbd itself
    assert allow_accounts_errors({}, {"gpu": ["physics"]}) == []


def test_a_default_qos_outside_the_associations_qos_is_named_where_the_two_part() -> None:
    """Inherited both ways (tests/integration/test_qos_words_sacctmgr_takes.py asks the real sacctmgr): the account
    that sets either names it, a child that narrows its QOS below the parent's default, a user whose own QOS leaves
    the account's default out; root gives QOS normal and no default."""
    qos = ["normal", "high"]
    wide = {"qos": ["normal", "high"], "default_qos": "high"}
    assert association_errors({"ml": {"default_qos": "normal"}, "cv": wide}, {}, qos, []) == []
    assert association_errors({"cv": wide, "sub": {"parent": "cv"}}, {"u": {"account": "sub"}}, qos, []) == []
    (error,) = association_errors({"ml": {"default_qos": "high"}}, {}, qos, [])
    assert error.startswith("accounting_accounts.ml: its default QOS 'high' (its own) is not one of its QOS (normal:")
    assert "root's" in error and "every user association under it" in error
    (error,) = association_errors({"cv": wide, "sub": {"parent": "cv", "qos": ["normal"]}}, {}, qos, [])
    assert error.startswith("accounting_accounts.sub: its default QOS 'high' (from account cv)")
    (error,) = association_errors({"cv": wide}, {"u": {"account": "cv", "qos": ["normal"]}}, qos, [])
    assert error.startswith("accounting_users.u (account cv): its default QOS 'high' (from account cv)")
    assert "would refuse the user" in error
