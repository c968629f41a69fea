"""A QOS's flags and preemption mode (cluster_qos.<name>.flags, .preempt_mode) as the real sacctmgr of 22.05, 24.11
and 26.05 takes them: a word it does not know ("Unknown QOS flag used in", "Bad Preempt Mode given") stops the
accounting role after the daemons were set up, so the validation refuses exactly those before any host is touched."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.associations import association_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import inventory_errors

from lab.slurmctld_check import SUITE_RELEASE, sacctmgr_answers
from tests.unit.factory import valid_groups, valid_spec

pytestmark = pytest.mark.slurmctld

# cluster_qos.<name> -> the sacctmgr arguments the accounting role gives for it
QOS: list[dict[str, Any]] = [
    {"flags": ["DenyOnLimit"]},
    {"flags": ["denyonlimit", "NoReserve", "OverPartQOS"]},
    {"flags": ["DenyOnLimt"]},
    {"flags": ["Relative"]},
    {"flags": ["NoDecay", "UsageFactorSafe", "RequiresReservation"]},
    {"preempt_mode": "requeue"},
    {"preempt_mode": "REQUEU"},
    {"preempt_mode": "cluster"},
    {"preempt_mode": "suspend"},
]


def _arguments(name: str, qos: dict[str, Any]) -> str:
    words = [f"flags={','.join(qos['flags'])}"] if "flags" in qos else []
    words += [f"preemptmode={qos['preempt_mode']}"] if "preempt_mode" in qos else []
    return f"add qos {name} {' '.join(words)}"


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_sacctmgr_takes_the_qos_words_the_validation_takes_and_only_those(docker_lab: None, suite: str) -> None:
    answers = sacctmgr_answers(suite, [_arguments(f"q{i}", qos) for i, qos in enumerate(QOS)])
    verdicts = []
    for i, (qos, (status, said)) in enumerate(zip(QOS, answers, strict=True)):
        spec, groups = valid_spec(), valid_groups()
        spec.update(slurm_release=SUITE_RELEASE[suite])
        spec.pop("fabric")
        spec["qos"] = {**spec.get("qos", {}), f"q{i}": qos}
        refused = [error for error in inventory_errors(spec, groups) if f"cluster_qos.q{i}." in error]
        verdicts.append((qos, refused, status, said))
    wrong = [verdict for verdict in verdicts if bool(verdict[1]) != (verdict[2] != 0)]
    assert not wrong, wrong
    assert {status != 0 for _, _, status, _ in verdicts} == {True, False}


# An account tree and its users (accounting_accounts, accounting_users), each case on its own names: whether every
# association gets a default QOS among its QOS, as the validation judges it and as the real sacctmgr leaves it.
TREES: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"qos": ["normal"], "default_qos": "high"}, {}),
    ({"qos": ["normal", "high"], "default_qos": "high"}, {}),
    ({"default_qos": "normal"}, {}),
    ({"default_qos": "high"}, {}),
    ({"qos": ["normal", "high"], "default_qos": "high"}, {"qos": ["normal"]}),
    ({"qos": ["normal", "high"], "default_qos": "high"}, {"qos": ["high"]}),
    ({"qos": ["normal", "high"], "default_qos": "high"}, {"child": {"qos": ["normal"]}}),
    ({"qos": ["normal", "high"], "default_qos": "high"}, {"child": {}}),
]


def _tree(i: int, account: dict[str, Any], extra: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The case's accounting_accounts and accounting_users: account dq<i> (and a child dq<i>c), a user of the lowest."""
    accounts = {f"dq{i}": account}
    if "child" in extra:
        accounts[f"dq{i}c"] = {"parent": f"dq{i}", **extra["child"]}
    user = {"account": list(accounts)[-1], **({"qos": extra["qos"]} if "qos" in extra else {})}
    return accounts, {f"dqu{i}": user}


def _commands(accounts: dict[str, Any], users: dict[str, Any]) -> list[str]:
    """What the accounting role gives sacctmgr for them (the module's add, in the tree's order)."""
    commands = []
    for name, account in accounts.items():
        words = [f"parent={account.get('parent', 'root')}"]
        words += [f"qos={','.join(account['qos'])}"] if "qos" in account else []
        words += [f"defaultqos={account['default_qos']}"] if "default_qos" in account else []
        commands.append(f"add account {name} {' '.join(words)}")
    for name, user in users.items():
        qos = f" qos={','.join(user['qos'])}" if "qos" in user else ""
        commands.append(f"add user {name} defaultaccount={user['account']}{qos}")
    return commands


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_every_association_gets_a_default_qos_among_its_qos_as_the_validation_judges(
    docker_lab: None, suite: str
) -> None:
    """sacctmgr adds an account whose default QOS is not among its QOS (its own or inherited) and then refuses the
    users under it (24.11, 26.05), or adds them with a default they may not use (22.05): the validation refuses
    exactly the trees that leave such an association, whichever way the release fails."""
    trees = [_tree(i, account, extra) for i, (account, extra) in enumerate(TREES)]
    commands = ["add qos high", *[command for tree in trees for command in _commands(*tree)]]
    commands.append("show assoc format=account,user,qos,defaultqos -P -n")
    answers = sacctmgr_answers(suite, commands)
    rows = [row.split("|") for row in answers[-1][1].split() if row.count("|") == 3]
    verdicts = []
    for i, (accounts, users) in enumerate(trees):
        failed = [
            said for command, (status, said) in zip(commands, answers, strict=True) if status and f"dq{i}" in command
        ]
        unusable = [row for row in rows if row[0] in accounts and row[3] and row[3] not in row[2].split(",")]
        errors = association_errors(accounts, users, ["normal", "high"], [])
        verdicts.append((accounts, users, errors, failed, unusable))
    wrong = [verdict for verdict in verdicts if bool(verdict[2]) != bool(verdict[3] or verdict[4])]
    assert not wrong, wrong
    assert {bool(verdict[2]) for verdict in verdicts} == {True, False}


USER_NAMES = ["alice", "Alice", "john.doe", "bob@ad.example.org", "Bob@AD.example.org", "svc-ml_2", "jdoe$"]


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_user_names_are_kept_as_written_exactly_where_the_validation_takes_them(docker_lab: None, suite: str) -> None:
    """sacctmgr stores a user under the name it was given, or in lower case (slurmdbd without PreserveCaseUser): an
    association then belongs to no login of that name. The validation takes exactly the names stored as written."""
    commands = ["add account names", *[f"add user {name} defaultaccount=names" for name in USER_NAMES]]
    commands.append("show user format=user -P -n")
    answers = sacctmgr_answers(suite, commands)
    stored = set(answers[-1][1].split())
    for name in USER_NAMES:
        errors = association_errors({"names": {}}, {name: {"account": "names"}}, ["normal"], [])
        assert (errors == []) == (name in stored), (name, stored, errors)
