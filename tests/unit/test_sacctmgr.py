"""sacctmgr planning against recorded sacctmgr output: only the needed add/modify commands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.filter.accounting import (
    account_settings,
    qos_in_order,
    qos_settings,
    user_settings,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.sacctmgr import (
    differences,
    normalise,
    parse_rows,
    plan_account,
    plan_cluster,
    plan_federation,
    plan_qos,
    plan_user,
)


class FakeSacctmgr:
    """Answers `show` calls from a table keyed by entity; records every call."""

    def __init__(self, answers: dict[str, str]) -> None:
        self.answers = answers
        self.calls: list[list[str]] = []

    def __call__(self, args: Sequence[str]) -> str:
        self.calls.append(list(args))
        entity = args[args.index("show") + 1]
        return self.answers.get("coordinators" if "withcoord" in args else entity, "")


def test_parse_rows_and_normalise() -> None:
    assert parse_rows("high|1000|low\n\n", ["Name", "Priority", "Preempt"]) == [
        {"Name": "high", "Priority": "1000", "Preempt": "low"}
    ]
    assert normalise(["b", "a"]) == "a,b"
    assert normalise("b, a") == "a,b"
    assert normalise(True) == "yes"


def test_missing_qos_is_added_with_its_settings() -> None:
    run = FakeSacctmgr({})
    assert plan_qos(run, "high", {"Priority": 1000, "Preempt": ["low"]}) == [
        ["add", "qos", "high", "Priority=1000", "Preempt=low"]
    ]
    assert run.calls[0][-1] == "format=Name,Priority,Preempt"


def test_existing_qos_is_modified_only_where_it_differs() -> None:
    run = FakeSacctmgr({"qos": "low|0|denyonlimit|gres/gpu=2\n"})
    settings = {"Priority": 0, "Flags": ["DenyOnLimit"], "MaxTRESPerUser": "gres/gpu=4"}
    assert plan_qos(run, "low", settings) == [
        ["modify", "qos", "where", "name=low", "set", "MaxTRESPerUser=gres/gpu=4"]
    ]
    assert run.calls[0][-1] == "format=Name,Priority,Flags,MaxTRESPU"
    unchanged = FakeSacctmgr({"qos": "low|0|DenyOnLimit|gres/gpu=4\n"})
    assert plan_qos(unchanged, "low", settings) == []


def test_cluster_added_once() -> None:
    assert plan_cluster(FakeSacctmgr({}), "pilot") == [["add", "cluster", "pilot"]]
    assert plan_cluster(FakeSacctmgr({"cluster": "pilot\n"}), "pilot") == []


def test_account_record_and_association() -> None:
    settings = {"Description": "machine learning", "Organization": "lab", "QOS": ["normal", "high"]}
    assert plan_account(FakeSacctmgr({}), "ml", "pilot", settings) == [
        ["add", "account", "ml", "cluster=pilot", "Description=machine learning", "Organization=lab", "QOS=high,normal"]
    ]
    present = FakeSacctmgr({"account": "ml|machine learning|lab\n", "association": "ml||high,normal\n"})
    assert plan_account(present, "ml", "pilot", settings) == []
    renamed = FakeSacctmgr({"account": "ml|ML|lab\n", "association": "ml||normal\n"})
    assert plan_account(renamed, "ml", "pilot", settings) == [
        ["modify", "account", "where", "name=ml", "set", "Description=machine learning"],
        ["modify", "account", "where", "name=ml", "cluster=pilot", "set", "QOS=high,normal"],
    ]


def test_user_associations_default_account_and_qos() -> None:
    settings = {"DefaultAccount": "root", "Accounts": ["ml"], "QOS": ["normal", "low"]}
    fresh = FakeSacctmgr({"association": "root||normal\n", "user": "root|root\n"})
    assert plan_user(fresh, "root", "pilot", settings) == [
        ["modify", "user", "where", "name=root", "account=root", "cluster=pilot", "set", "QOS=low,normal"],
        ["add", "user", "root", "account=ml", "cluster=pilot", "QOS=low,normal"],
    ]
    assert fresh.calls[0][-1] == "format=Account,Partition,QOS"
    done = FakeSacctmgr({"association": "root||low,normal\nml||low,normal\n", "user": "root|root\n"})
    assert plan_user(done, "root", "pilot", settings) == []


def test_user_associations_per_partition_with_limits() -> None:
    """Partitions: one association per account and partition, the partitionless one and other partitions'
    removed; the user's limits on each, compared as sacctmgr prints them."""
    settings = {"DefaultAccount": "vision", "Partitions": ["gpu"], "MaxSubmitJobs": 3, "GrpTRES": "gres/gpu=2"}
    before = FakeSacctmgr({"association": "vision|||\nvision|scavenger||\n", "user": "carol|vision\n"})
    assert plan_user(before, "carol", "pilot", settings) == [
        [
            "add",
            "user",
            "carol",
            "account=vision",
            "partition=gpu",
            "cluster=pilot",
            "MaxSubmitJobs=3",
            "GrpTRES=gres/gpu=2",
        ],
        ["remove", "user", "where", "name=carol", "account=vision", "partition=", "cluster=pilot"],
        ["remove", "user", "where", "name=carol", "account=vision", "partition=scavenger", "cluster=pilot"],
    ]
    assert before.calls[0][-1] == "format=Account,Partition,QOS,MaxSubmitJobs,GrpTRES"
    after = FakeSacctmgr({"association": "vision|gpu||3|gres/gpu=2\n", "user": "carol|vision\n"})
    assert plan_user(after, "carol", "pilot", settings) == []
    raised = FakeSacctmgr({"association": "vision|gpu||2|gres/gpu=2\n", "user": "carol|vision\n"})
    assert plan_user(raised, "carol", "pilot", settings) == [
        [
            "modify",
            "user",
            "where",
            "name=carol",
            "account=vision",
            "partition=gpu",
            "cluster=pilot",
            "set",
            "MaxSubmitJobs=3",
        ]
    ]


def test_account_limits_clear_with_minus_one_and_coordinators_follow_the_inventory() -> None:
    settings = {"Parent": "research", "GrpTRES": "cpu=-1,gres/gpu=2", "MaxJobs": -1, "Coordinators": ["bob"]}
    new = FakeSacctmgr({})
    assert plan_account(new, "vision", "pilot", settings) == [
        ["add", "account", "vision", "cluster=pilot", "Parent=research", "GrpTRES=cpu=-1,gres/gpu=2", "MaxJobs=-1"],
        ["add", "coordinator", "account=vision", "names=bob"],
    ]
    # set as wanted: cpu cleared, MaxJobs cleared, bob the only coordinator
    done = FakeSacctmgr(
        {"account": "vision\n", "coordinators": "vision|bob\n", "association": "vision||research|gres/gpu=2|\n"}
    )
    assert plan_account(done, "vision", "pilot", settings) == []
    assert done.calls[-1][-2:] == ["withcoord", "format=Account,Coordinators"]
    drifted = FakeSacctmgr(
        {
            "account": "vision\n",
            "coordinators": "vision|alice,bob\n",
            "association": "vision||research|cpu=4,gres/gpu=2|5\n",
        }
    )
    assert plan_account(drifted, "vision", "pilot", {**settings, "Coordinators": ["bob", "carol"]}) == [
        [
            "modify",
            "account",
            "where",
            "name=vision",
            "cluster=pilot",
            "set",
            "GrpTRES=cpu=-1,gres/gpu=2",
            "MaxJobs=-1",
        ],
        ["add", "coordinator", "account=vision", "names=carol"],
        ["remove", "coordinator", "account=vision", "names=alice"],
    ]


def test_differences_ignore_flag_case() -> None:
    assert differences({"Flags": "DenyOnLimit"}, {"Flags": ["denyonlimit"]}) == {}


def test_inventory_filters() -> None:
    qos: dict[str, dict[str, Any]] = {
        "high": {"priority": 1000, "preempt": ["low"], "limits": {"GrpTRES": "gres/gpu=8"}},
        "low": {"flags": ["DenyOnLimit"], "max_wall": "1:00:00"},
        "normal": {},
    }
    assert [item["key"] for item in qos_in_order(qos)] == ["low", "high", "normal"]
    assert qos_settings(qos["high"]) == {"Priority": 1000, "Preempt": ["low"], "GrpTRES": "gres/gpu=8"}
    assert qos_settings(qos["low"]) == {"Priority": 0, "MaxWall": "1:00:00", "Flags": ["DenyOnLimit"]}
    # a TRES limit given as a mapping (as the accounts' are) reaches sacctmgr as its text
    mapped = {"limits": {"MaxTRESPerUser": {"gres/gpu": 8, "cpu": 64}, "MaxJobsPerUser": 4}}
    assert qos_settings(mapped) == {"Priority": 0, "MaxTRESPerUser": "cpu=64,gres/gpu=8", "MaxJobsPerUser": 4}
    assert account_settings({"description": "x", "parent": "root", "qos": []}) == {"Description": "x", "Parent": "root"}
    assert user_settings({"account": "ml", "qos": ["normal"]}) == {"DefaultAccount": "ml", "QOS": ["normal"]}


def test_cidr_filter() -> None:
    from ansible_collections.gpucluster.cluster.plugins.filter.network import cidr

    assert cidr("172.18.0.0", "255.255.0.0") == "172.18.0.0/16"
    assert cidr("10.1.2.0", "255.255.255.0") == "10.1.2.0/24"


def test_federation_is_created_with_its_clusters_then_kept_in_step() -> None:
    assert plan_federation(FakeSacctmgr({}), "fed", {"Clusters": ["pod1", "pod2"]}) == [
        ["add", "federation", "fed", "clusters=pod1,pod2"]
    ]
    # As Slurm 24.11 prints it (the federation lab): member rows after the first end with a stray '|'.
    run = FakeSacctmgr({"federation": "fed|pod1\nfed|pod2|\n"})
    assert plan_federation(run, "fed", {"Clusters": ["pod1", "pod2"]}) == []
    assert run.calls[0][-1] == "format=Federation,Cluster"
    grown = plan_federation(FakeSacctmgr({"federation": "fed|pod1\nfed|old\n"}), "fed", {"Clusters": "pod1,pod2"})
    assert grown == [
        ["modify", "federation", "where", "name=fed", "set", "clusters+=pod2"],
        ["modify", "federation", "where", "name=fed", "set", "clusters-=old"],
    ]
    empty = plan_federation(FakeSacctmgr({"federation": "fed|\n"}), "fed", {"Clusters": ["pod1"]})
    assert empty == [["modify", "federation", "where", "name=fed", "set", "clusters+=pod1"]]
