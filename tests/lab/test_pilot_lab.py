"""The pilot lab (molecule/pilot): built once from bare containers by playbooks/deploy.yml, then checked.

Real daemons only (munged, slurmctld, slurmd, slurmdbd, MariaDB) in systemd containers; the compute
containers carry fake /dev/nvidia* nodes so typed GRES goes through the real slurmctld and slurmd.
"""

from __future__ import annotations

import base64
import json
import re
import secrets as secrets_module
import shlex
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import JobTmpfs
from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import Release
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import boolean_variables

from lab import local_mirror, slurm_testsuite
from tests.lab import molecule_run
from tests.lab.molecule_run import (
    SUITES,
    changed_tasks,
    failures,
    json_run,
    recap,
    refused_unchanged,
    sh,
    task_actions,
    wait_for,
)

HOSTS = ("pilot-ctl01", "pilot-dbd01", "pilot-gpu01", "pilot-gpu02")

pytestmark = pytest.mark.lab

_suite = {"name": "trixie"}


def molecule(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return molecule_run.molecule(*args, suite=_suite["name"], env=env)


def upgrade_slurm(release: str) -> subprocess.CompletedProcess[str]:
    """playbooks/upgrade-slurm.yml (the scenario's side effect) to ``release``, from Debian unstable."""
    return molecule(
        "side-effect",
        "-s",
        "pilot",
        env={
            "GPUCLUSTER_LAB_RELEASE": release,
            "GPUCLUSTER_LAB_UPGRADE_REPOSITORY": "deb http://deb.debian.org/debian sid main",
            "GPUCLUSTER_LAB_UPGRADE_APT_RELEASE": "sid",
        },
    )


def slurm_packages(host: str) -> str:
    return docker_exec(host, "dpkg-query", "--show", "--showformat=${Package}=${Version}\n", "slurm*")


def runs_release(host: str, release: str) -> bool:
    """Every installed Slurm package of the host is of ``release`` (dpkg lists removed ones without a version)."""
    installed = [line for line in slurm_packages(host).splitlines() if not line.endswith("=")]
    return bool(installed) and all(f"={release}." in line for line in installed)


def backups(host: str, directory: str, suffix: str) -> dict[str, int]:
    """The files of ``directory`` on ``host`` ending in ``suffix``, with their modes (none where it does not exist)."""
    files = molecule_run.host(host).file(directory)
    if not files.exists:
        return {}
    return {
        name: molecule_run.host(host).file(f"{directory}/{name}").mode
        for name in files.listdir()
        if name.endswith(suffix)
    }


def docker_exec(host: str, *command: str) -> str:
    return subprocess.run(["docker", "exec", host, *command], capture_output=True, text=True, check=True).stdout


@dataclass
class Lab:
    converge_log: str
    converge_seconds: float
    bare_check: molecule_run.BareCheck


# /home of the lab is a Docker volume shared by its containers (the lab kernel has no NFS).
VOLUMES = ("gpucluster-pilot-home",)


# Debian 13 in the test command; GPUCLUSTER_FULL=1 adds Debian 12 (Slurm 22.05: about 12 minutes alone, 20 in CI
# beside the other stream). The test command covers 22.05 with the real slurmctld's configuration checks and the
# one-host scenarios of the roles that run its daemons (tests/lab/test_role_scenarios.py: IN_TEST_COMMAND).
PILOT_SUITES = {suite: release for suite, release in SUITES.items() if molecule_run.FULL or suite == "trixie"}


@pytest.fixture(scope="module", params=list(PILOT_SUITES), ids=[f"{s}-slurm{r}" for s, r in PILOT_SUITES.items()])
def lab(request: pytest.FixtureRequest) -> Iterator[Lab]:
    _suite["name"] = request.param
    try:  # a lab that fails to build is destroyed too: its fixed names would stop the next run
        built = molecule_run.build_lab("pilot", request.param, VOLUMES, HOSTS)
        print(f"\npilot lab ({request.param}): {built.origin}; its first converge took {built.converge_seconds:.0f} s")
        molecule_run.wait_for_nodes("pilot-ctl01", "the pilot")
        assert built.bare_check is not None
        yield Lab(built.converge_log, built.converge_seconds, built.bare_check)
    finally:
        molecule_run.destroy_lab("pilot", request.param, VOLUMES)


def test_a_check_run_on_the_bare_hosts_says_what_it_would_do_and_changes_nothing(lab: Lab) -> None:
    """``--check --diff`` before the first deploy - the first command a careful admin runs on new hosts - goes through
    every play (packages, services and units the run would install or write first are reported, not asked for),
    changes nothing on any host and shows no secret."""
    molecule_run.assert_bare_check_clean(lab.bare_check, HOSTS, leaked)


def test_second_converge_changes_nothing(lab: Lab) -> None:
    """A re-run changes nothing, and its -vvv log - where every file the first run made is there to be read -
    holds no secret."""
    start = time.monotonic()
    result = molecule("converge", "-s", "pilot", "--", "-vvv")
    print(f"\npilot lab: re-run took {time.monotonic() - start:.0f} s (first run {lab.converge_seconds:.0f} s)")
    assert result.returncode == 0, failures(result.stdout)
    assert leaked(result.stdout + result.stderr) == []
    counters = recap(result.stdout)
    assert set(HOSTS) <= set(counters)
    assert {host: counters[host]["changed"] for host in HOSTS} == dict.fromkeys(HOSTS, 0), changed_tasks(result.stdout)


# What a rotation of the two database passwords may change on the database host, and nothing else anywhere.
ROTATED_SECRET_TASKS = {
    "accounting : Create the slurmdbd database user",
    "accounting : Write slurmdbd.conf (0600, slurm)",
    "accounting : Restart slurmdbd",
    "monitoring : Create the exporter's database user (process list and replica state; no SELECT)",
    "monitoring : Write the exporter's credentials",
    "monitoring : Restart mysqld_exporter",
}


def test_check_mode_with_diff_changes_only_what_a_rotated_secret_changes(lab: Lab) -> None:
    """One `--check --diff` run on the converged cluster with the database passwords rotated in the inventory
    (``-e``): it would change the files and users that hold them (slurmdbd.conf, the exporter's credentials) and
    nothing else on any host, and its output shows neither the old nor the new values. Check mode's cleanness and
    the secrets' absence from --diff in one run (two runs of 2-3 minutes before, for CI time). On Debian 13 only:
    the second converge proves each release's files idempotent; check mode and no_log do not depend on the suite
    (both passed on 22.05 and 24.11 in every full run to 2026-11-26)."""
    if _suite["name"] != "trixie":
        pytest.skip("check mode and --diff handling do not depend on the suite: checked once, on Debian 13")
    rotated = {
        "accounting_db_password": secrets_module.token_hex(16),
        "monitoring_mysqld_exporter_db_password": secrets_module.token_hex(16),
    }
    result = molecule("converge", "-s", "pilot", "--", "--check", "--diff", "-e", json.dumps(rotated))
    assert result.returncode == 0, result.stdout[-5000:]
    output = result.stdout + result.stderr
    assert leaked(output) == [], "an old secret is in the --check --diff output"
    assert [name for name, value in rotated.items() if value in output] == [], "a new secret is in the output"
    changed = changed_tasks(result.stdout)
    assert changed, "the rotation would change nothing: not a test"
    assert [task for task in changed if task.rpartition(": ")[0] not in ROTATED_SECRET_TASKS] == [], changed
    assert {task.rpartition(": ")[2] for task in changed} == {"pilot-dbd01"}, changed
    assert set(HOSTS) <= set(recap(result.stdout)), "a host is missing from the recap"


def test_booleans_given_as_words_turn_things_off_like_false(lab: Lab) -> None:
    """`-e flag=false` arrives as the string "false", which Jinja reads as true. The converged cluster is run in
    check mode with every boolean variable of the roles and the model off, once as words (`-e name=false ...`)
    and once as YAML's false (`-e '{"name": false}'`): every task does the same on every host - runs or is
    skipped, would change or not, with the same module arguments and the same --diff - so no word turns on what
    false turns off. On Debian 13 only: the roles' conditions are the same on both suites (half the test's cost).
    With GPUCLUSTER_FULL=1 (two check runs of the whole pilot: about 4 minutes alone, 6 in CI): the test command
    holds the same rule statically (tests/unit/test_booleans.py: every use of a boolean variable goes through
    `| bool`; tests/integration/test_boolean_words.py: every playbook's validation reads the words)."""
    if _suite["name"] != "trixie":
        pytest.skip("the roles' conditions do not depend on the suite: checked once, on Debian 13")
    if not molecule_run.FULL:
        pytest.skip("GPUCLUSTER_FULL=1 runs it (two check runs of the whole pilot); the unit test holds the rule")
    names = sorted(boolean_variables())
    json_report = {"ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json"}
    runs = [
        molecule("converge", "-s", "pilot", "--", "--check", "--diff", "-e", extra, env=json_report)
        for extra in (" ".join(f"{name}=false" for name in names), json.dumps(dict.fromkeys(names, False)))
    ]
    for run in runs:
        assert run.returncode == 0, run.stdout[-5000:]
    words, false = (json_run(run.stdout) for run in runs)
    # the flags were read: turned off, the converged cluster would change (not a comparison of two no-ops)
    assert sum(stats["changed"] for stats in false["stats"].values()) > 0, false["stats"]
    differ = [
        f"{task}: {host}\n  as words: {done[host]}\n  as false: {other.get(host)}"
        for (task, done), (_, other) in zip(task_actions(words), task_actions(false), strict=True)
        for host in done
        if done[host] != other.get(host)
    ]
    assert differ == [], "\n".join(differ[:10])


def test_jobs_run_and_are_accounted(lab: Lab) -> None:
    """molecule/pilot/verify.yml: munge across nodes, GRES job, array, dependency chain, QOS denial, sacct."""
    result = molecule("verify", "-s", "pilot")
    assert result.returncode == 0, result.stdout[-8000:]
    assert "All 4 array tasks and the 3 chained jobs completed" in result.stdout


def secrets() -> dict[str, str]:
    """Every secret the pilot holds, as it could appear in output: the MUNGE and JWT keys (base64, as they are
    read and copied), slurmdbd's database password, the database exporter's password, an Alertmanager receiver's
    token, the monitoring web password, a host's TLS private key."""
    found = {
        "MUNGE key": docker_exec("pilot-ctl01", "base64", "-w0", "/etc/munge/munge.key").strip(),
        "JWT key": docker_exec("pilot-ctl01", "base64", "-w0", "/etc/slurm/jwt_hs256.key").strip(),
    }
    assert len(found["MUNGE key"]) >= 128 and len(found["JWT key"]) >= 32  # 1024 and 256+ random bits
    conf = docker_exec("pilot-dbd01", "cat", "/etc/slurm/slurmdbd.conf")
    password = re.search(r"^StoragePass=(.+)$", conf, re.M)
    assert password and len(password.group(1)) == 32
    found["StoragePass"] = password.group(1)
    exporter = re.search(r"^password=(.+)$", docker_exec("pilot-dbd01", "cat", EXPORTER_CNF), re.M)
    assert exporter and len(exporter.group(1)) == 32
    found["mysqld_exporter password"] = exporter.group(1)
    web = docker_exec("pilot-dbd01", "cat", "/etc/prometheus/web-password").strip()
    assert len(web) == 32
    found["monitoring web password"] = web
    key = docker_exec("pilot-dbd01", "sed", "-n", "2p", "/etc/prometheus/tls/monitoring.key").strip()
    assert len(key) >= 60
    found["TLS private key of the exporters"] = key
    alertmanager = docker_exec("pilot-dbd01", "cat", "/etc/prometheus/alertmanager.yml")
    token = re.search(r"^\s*credentials: (\S+)$", alertmanager, re.M)
    assert token and len(token.group(1)) == 40
    found["Alertmanager receiver token"] = token.group(1)
    return found


def leaked(output: str) -> list[str]:
    """The secrets found in ``output`` (a key also by its first 64 characters: a line of a longer dump), the
    passwords and tokens also base64-encoded (a file that holds them read by slurp)."""
    return [
        name
        for name, value in secrets().items()
        if value in output or value[:64] in output or any(form in output for form in molecule_run.base64_forms(value))
    ]


def test_secrets_never_reach_the_verbose_log(lab: Lab) -> None:
    assert "ESTABLISH DOCKER CONNECTION" in lab.converge_log  # it is the -vvv log
    assert leaked(lab.converge_log) == []


def test_secret_files_are_private_and_the_key_is_the_same_everywhere(lab: Lab) -> None:
    sums = {host: docker_exec(host, "sha256sum", "/etc/munge/munge.key").split()[0] for host in HOSTS}
    assert len(set(sums.values())) == 1, sums
    for host in HOSTS:
        assert docker_exec(host, "stat", "-c", "%a %U", "/etc/munge/munge.key").strip() == "400 munge"
    assert docker_exec("pilot-dbd01", "stat", "-c", "%a %U", "/etc/slurm/slurmdbd.conf").strip() == "600 slurm"
    assert docker_exec("pilot-dbd01", "stat", "-c", "%a %U %G", EXPORTER_CNF).strip() == "640 root mysqld-exporter"
    assert docker_exec("pilot-dbd01", "stat", "-c", "%a %U %G", "/etc/prometheus/alertmanager.yml").strip() == (
        "640 root prometheus"
    )
    for path in ("/etc/prometheus/web-password", "/etc/prometheus/web-config.yml"):
        assert docker_exec("pilot-dbd01", "stat", "-c", "%a %U %G", path).strip() == "640 root prometheus", path
    for host in HOSTS:  # each host's TLS key for its exporters: made there, read by prometheus only
        mode = docker_exec(host, "stat", "-c", "%a %U %G", "/etc/prometheus/tls/monitoring.key").strip()
        assert mode == "640 root prometheus", (host, mode)
    users = {host: docker_exec(host, "id", "-u", "munge").strip() for host in HOSTS}
    assert set(users.values()) == {"64031"}, users


EXPORTER_CNF = "/etc/prometheus/mysqld-exporter.cnf"
# A scrape as Prometheus makes it on the monitoring host: HTTPS verified against the cluster CA, its user and password.
SCRAPE = """python3 - <<'EOF'
import base64, ssl, urllib.request
password = open("/etc/prometheus/web-password").read()
token = base64.b64encode(("gpucluster:" + password).encode()).decode()
request = urllib.request.Request("{url}", headers={{"Authorization": "Basic " + token}})
context = ssl.create_default_context(cafile="/etc/prometheus/tls/ca.crt")
print(urllib.request.urlopen(request, context=context, timeout=30).read().decode())
EOF"""


def test_the_database_exporter_holds_the_least_it_needs(lab: Lab) -> None:
    """mysqld_exporter runs as a user of its own (not prometheus, which also runs Prometheus and the Slurm
    exporter), which alone reads its credentials; its database user holds PROCESS and SLAVE MONITOR, no SELECT:
    with its credentials the accounting database and mysql.user's password hashes are refused, while every
    collector it runs still succeeds."""
    dbd = partial(sh, "pilot-dbd01")
    pid = dbd("systemctl show --property=MainPID --value prometheus-mysqld-exporter")
    assert molecule_run.host("pilot-dbd01").file(f"/proc/{pid}").user == "mysqld-exporter"
    assert "Permission denied" in dbd(f"runuser -u prometheus -- cat {EXPORTER_CNF} 2>&1", check=False)
    grants = dbd("mysql -N -e \"SHOW GRANTS FOR 'prometheus_exporter'@'localhost'\"")
    assert "PROCESS" in grants and "SLAVE MONITOR" in grants and "SELECT" not in grants, grants
    for query in ("SELECT count(*) FROM mysql.user", "SELECT count(*) FROM slurm_acct_db.acct_table"):
        denied = dbd(f"mysql --defaults-file={EXPORTER_CNF} -N -e '{query}' 2>&1; echo rc=$?", check=False)
        assert "denied" in denied and not denied.endswith("rc=0"), (query, denied)
    metrics = dbd(SCRAPE.format(url="https://pilot-dbd01:9104/metrics"))
    assert re.search(r"^mysql_up 1$", metrics, re.M), metrics[-2000:]
    assert re.search(r"^mysql_global_status_uptime \d", metrics, re.M)
    failed = re.findall(r"^(mysql_exporter_(?:collector_success\{[^}]*\} 0|last_scrape_error 1))$", metrics, re.M)
    assert failed == [], failed


def test_exporters_listen_on_the_hosts_own_address_only(lab: Lab) -> None:
    """monitoring_exporter_address (empty: the host's own address): node_exporter on every host, the Slurm exporter
    on the controller and mysqld_exporter on the database host listen on the address the host's name has - the
    one Prometheus scrapes (its targets are all up: molecule/pilot/verify.yml) - not on loopback or any other."""
    exporters = {"pilot-ctl01": (9100, 9341), "pilot-dbd01": (9100, 9104)} | {f"pilot-gpu0{i}": (9100,) for i in (1, 2)}
    for host, ports in exporters.items():
        address = sh(host, f"getent ahostsv4 {host}").split()[0]
        local = [line.split()[3] for line in sh(host, "ss -Htln").splitlines()]
        for port in ports:
            assert [found for found in local if found.endswith(f":{port}")] == [f"{address}:{port}"], (host, local)
        loopback = sh(host, f"(exec 3<>/dev/tcp/127.0.0.1/{ports[0]}) 2>/dev/null && echo open || echo refused")
        assert loopback == "refused", f"{host}: port {ports[0]} answers on loopback"


# Refusals decided on the Ansible controller before any host is contacted: the managed hosts' release plays no
# part, so they run once, on Debian 13's lab.
CONTROLLER_ONLY = "refused on the Ansible controller before any host is contacted: checked once, on Debian 13"


def test_bad_inventory_stops_before_any_host_is_changed(lab: Lab) -> None:
    if _suite["name"] != "trixie":
        pytest.skip(CONTROLLER_ONLY)
    before = docker_exec("pilot-ctl01", "sha256sum", "/etc/slurm/slurm.conf")
    bad_partitions = '{"cluster_partitions": [{"name": "gpu", "node_types": ["a100"]}]}'
    result = molecule("converge", "-s", "pilot", "--", "-e", bad_partitions)
    assert result.returncode != 0
    assert "node type 'a100' is not declared in cluster_node_types" in result.stdout
    assert "compute hosts pilot-gpu[01-02] are in no partition" in result.stdout
    assert not any(host in recap(result.stdout) for host in HOSTS), "a managed host ran a task"
    assert docker_exec("pilot-ctl01", "sha256sum", "/etc/slurm/slurm.conf") == before
    # --limit leaves the controller (localhost) out of the run: the validation runs all the same.
    result = molecule("converge", "-s", "pilot", "--", "--limit", "pilot-gpu02", "-e", bad_partitions)
    assert result.returncode != 0
    assert "node type 'a100' is not declared in cluster_node_types" in result.stdout, failures(result.stdout)
    counters = recap(result.stdout)
    assert set(counters) == {"pilot-gpu02"} and counters["pilot-gpu02"]["changed"] == 0, changed_tasks(result.stdout)
    result = molecule(
        "converge", "-s", "pilot", "--", "-e", '{"monitoring_alertmanager_route": {"receiver": "nobody"}}'
    )
    assert result.returncode != 0
    assert "receiver nobody is not in monitoring_alertmanager_receivers (hpc-oncall, hpc-tickets)" in result.stdout
    assert not any(host in recap(result.stdout) for host in HOSTS), "a managed host ran a task"


def test_a_node_type_its_hosts_fall_short_of_stops_before_any_change(lab: Lab) -> None:
    """The planning document's nominal memory (4 TB here; the lab's hosts have far less): slurmctld would set every
    node of the type INVAL and run no job. The deploy compares the hosts' facts first and stops before the first
    change (module_utils/hardware.py); the lab's own slurm.conf lets slurm.conf win (config_overrides), so this
    run leaves it out."""
    if _suite["name"] != "trixie":
        pytest.skip("the facts are compared on the Ansible controller: checked once, on Debian 13")
    before = docker_exec("pilot-gpu01", "sha256sum", "/etc/default/slurmd")
    declared = {
        "cluster_slurm_config": {"SlurmdTimeout": 60},
        "cluster_node_types": {
            "h100": {
                **{"group": "compute_h100", "sockets": 1, "cores_per_socket": 2, "threads_per_core": 1},
                **{"real_memory_mb": 4000000, "features": ["lab"], "gpu": {"type": "h100", "count": 4}},
            }
        },
    }
    result = molecule("converge", "-s", "pilot", "--", "-e", json.dumps(declared))
    said = refused_unchanged(result)
    assert "cluster_node_types.h100.real_memory_mb: 4000000, but its hosts have" in said, failures(result.stdout)
    assert "(pilot-gpu[01-02]; slurmd -C: RealMemory=" in said and "('Low RealMemory')" in said
    assert docker_exec("pilot-gpu01", "sha256sum", "/etc/default/slurmd") == before


def test_a_renamed_cluster_is_refused_before_any_change(lab: Lab) -> None:
    """slurmctld stops on the state of another ClusterName (CLUSTER NAME MISMATCH): a deploy with cluster_name changed
    would take the controller down at its restart. The controllers' StateSaveLocation is read right after the
    validation (playbooks/live_state.yml), and the run stops there, naming the name to keep; nothing changed."""
    result = molecule("converge", "-s", "pilot", "--", "-e", "cluster_name=renamed")
    said = refused_unchanged(result)
    assert "holds the state of the running cluster 'pilot', but cluster_name is 'renamed'" in said, failures(
        result.stdout
    )
    config = docker_exec("pilot-ctl01", "scontrol", "show", "config")
    assert re.search(r"^ClusterName\s*=\s*pilot$", config, re.M), config[:2000]
    assert "is UP" in docker_exec("pilot-ctl01", "scontrol", "ping")


def test_a_service_account_is_not_moved_under_its_running_daemons(lab: Lab) -> None:
    """common_munge_uid changed on a running cluster: usermod would refuse to move munge while munged runs, after the
    run had moved its group. The common role reads the accounts and their processes first and stops, naming the ids;
    nothing changed, munge keeps its uid."""
    before = docker_exec("pilot-gpu01", "id", "-u", "munge").strip()
    result = molecule("converge", "-s", "pilot", "--", "-e", "common_munge_uid=64099")
    said = refused_unchanged(result)
    assert "would give service accounts other ids under their running daemons - munge: uid " in said, failures(
        result.stdout
    )
    assert "common_munge_uid: 64099, and munged runs as munge" in said
    assert docker_exec("pilot-gpu01", "id", "-u", "munge").strip() == before
    assert docker_exec("pilot-gpu01", "getent", "group", "munge").split(":")[2] == before


def test_a_service_account_is_moved_with_its_daemons_files(lab: Lab) -> None:
    """common_slurm_uid changed with slurm's daemons stopped (slurmctld, slurmdbd): the accounts move on every host,
    and the files of the old uid in the daemons' directories with them - slurmctld of the new uid reads its
    owner-only StateSaveLocation and starts with the job it held (without the move, "No job state file" and the job
    gone). Moved back the same way. (--tags users: the account tasks alone, nothing else fixing the files.)"""
    ctl, dbd = "pilot-ctl01", "pilot-dbd01"
    held = docker_exec(ctl, "sbatch", "--parsable", "--hold", "--mem=100M", "--wrap", "true").strip()
    old = docker_exec(ctl, "id", "-u", "slurm").strip()

    def moved_to(uid: str) -> None:
        docker_exec(ctl, "systemctl", "stop", "slurmctld")
        docker_exec(dbd, "systemctl", "stop", "slurmdbd")
        result = molecule("converge", "-s", "pilot", "--", "-e", f"common_slurm_uid={uid}", "--tags", "users")
        assert result.returncode == 0, failures(result.stdout)
        for host in (ctl, dbd, "pilot-gpu01"):
            assert docker_exec(host, "id", "-u", "slurm").strip() == uid, host
        left = sh(ctl, "find /var/spool/slurmctld /var/log/slurm /etc/slurm -nouser -o -nogroup")
        assert not left.strip(), left
        docker_exec(dbd, "systemctl", "start", "slurmdbd")
        docker_exec(ctl, "systemctl", "start", "slurmctld")
        molecule_run.wait_for(f"job {held} in the queue of slurmctld as uid {uid}", lambda: squeue_job(ctl, held), 90)
        assert squeue_job(ctl, held).startswith("PENDING"), squeue_job(ctl, held)

    try:
        moved_to("64099")
    finally:
        moved_to(old)
        docker_exec(ctl, "scancel", held)


def test_a_moved_state_directory_is_refused_before_any_change(lab: Lab) -> None:
    """Restarted on a StateSaveLocation without its state, slurmctld starts without its jobs, queued and running
    (tests/integration/test_cluster_name_state.py). A deploy moving it while slurmctld runs from the old one stops
    right after the validation, saying how to move the state; nothing changed, the new directory not even made."""
    moved = {"cluster_slurm_config": {"SlurmdTimeout": 60, "StateSaveLocation": "/var/spool/slurmctld-moved"}}
    result = molecule("converge", "-s", "pilot", "--", "-e", json.dumps(moved))
    said = refused_unchanged(result)
    assert (
        "pilot-ctl01: slurmctld of the cluster 'pilot' runs with its state in /var/spool/slurmctld, but the inventory "
        "gives it StateSaveLocation /var/spool/slurmctld-moved"
    ) in said, failures(result.stdout)
    assert "absent" in sh("pilot-ctl01", "test -e /var/spool/slurmctld-moved || echo absent", check=False)


def test_a_partition_taken_out_while_it_holds_jobs_is_refused_before_any_change(lab: Lab) -> None:
    """A partition left out of cluster_partitions while a job waits in it: slurmctld restarted or reconfigured without
    it ends the job (NODE_FAIL; tests/integration/test_cluster_name_state.py). The controller's jobs are read right
    after the validation; the run stops naming the partition, the job and how to drain it; nothing changed, the job
    waits."""
    cluster = yaml.safe_load((molecule_run.ROOT / "molecule/pilot/inventory/group_vars/all/cluster.yml").read_text())
    partitions = cluster["cluster_partitions"]
    kept = [partition for partition in partitions if partition["name"] != "scavenger"]
    assert len(kept) == len(partitions) - 1
    job = sh(
        "pilot-gpu01", "cd /home/alice && runuser -u alice -- sbatch --parsable --hold -p scavenger -t 5 --wrap=true"
    )
    try:
        # (one partition left: no preemption between partitions either)
        changed = {"cluster_partitions": kept, "cluster_scheduling": {**cluster["cluster_scheduling"], "preempt": {}}}
        result = molecule("converge", "-s", "pilot", "--", "-e", json.dumps(changed))
        said = refused_unchanged(result)
        assert (
            f"pilot-ctl01: this run's slurm.conf leaves out partitions that hold jobs - scavenger: 1 job(s) (pending; "
            f"{job.strip()})"
        ) in said, failures(result.stdout)
        assert sh("pilot-ctl01", f"squeue -h -j {job.strip()} -o %T").strip() == "PENDING"
        assert "PartitionName=scavenger" in sh("pilot-ctl01", "scontrol show partition scavenger")
    finally:
        sh("pilot-ctl01", f"scancel {job.strip()}", check=False)


def test_a_limited_run_keeps_the_clusters_munge_key(lab: Lab) -> None:
    """Every host must hold the one MUNGE key: slurmctld and the slurmd of hosts with different keys stop
    authenticating each other ("Protocol authentication error"; nodes DOWN, their jobs lost). A site key rotated in a
    run limited to one node is refused before any change, the key unchanged and never shown; the first controller
    re-installed (its key gone) and deployed alone takes the cluster's key from another host instead of making a new
    one, which cut it off from every node before."""
    key = "/etc/munge/munge.key"
    cluster_key = sh("pilot-gpu01", f"sha256sum {key}").split()[0]
    rotated = base64.b64encode(secrets_module.token_bytes(1024)).decode()
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="gpucluster-munge-") as extra:
        # (from a file: molecule repeats a failed run's command line)
        extra.write(json.dumps({"munge_key_b64": rotated}))
        extra.flush()
        result = molecule("converge", "-s", "pilot", "--", "--limit", "pilot-gpu01", "-e", f"@{extra.name}")
    said = refused_unchanged(result)
    assert (
        "munge_key_b64 is not the key pilot-ctl01 holds, and this run is limited to 1 host(s) (pilot-gpu01)" in said
    ), failures(result.stdout)
    assert rotated not in result.stdout + result.stderr
    assert sh("pilot-gpu01", f"sha256sum {key}").split()[0] == cluster_key
    sh("pilot-ctl01", f"rm {key}")
    result = molecule("converge", "-s", "pilot", "--", "--limit", "pilot-ctl01", "--tags", "munge")
    assert result.returncode == 0, failures(result.stdout)
    assert sh("pilot-ctl01", f"sha256sum {key}").split()[0] == cluster_key
    wait_for(
        "a node's sinfo answered by slurmctld with the controller's key",
        lambda: sh("pilot-gpu01", "sinfo -h -o %P", check=False).strip(),
        60,
    )


def test_slurmctld_is_not_started_without_the_state_of_the_jobs_the_nodes_run(lab: Lab) -> None:
    """The controller's StateSaveLocation gone (a re-installed controller, a state directory lost or not mounted)
    while a node runs a job: slurmctld started on the empty directory ends the job as an orphan ("Orphan
    StepId=N.batch reported on node"). The run stops right after the validation naming the node and the job, nothing
    changed; with the state back the job still runs."""
    job = sh(
        "pilot-gpu01", "cd /home/alice && runuser -u alice -- sbatch --parsable -t 10 -w pilot-gpu02 --wrap='sleep 300'"
    ).strip()
    state = "/var/spool/slurmctld"
    try:
        wait_for(f"job {job} running", lambda: sh("pilot-ctl01", f"squeue -h -j {job} -o %T") == "RUNNING", 60)
        sh("pilot-ctl01", f"systemctl stop slurmctld && mv {state} {state}.kept")
        # pilot-gpu01 cannot be asked (its container paused: Docker refuses to run anything there): named too
        subprocess.run(["docker", "pause", "pilot-gpu01"], check=True, capture_output=True)
        try:
            result = molecule("converge", "-s", "pilot")
        finally:
            subprocess.run(["docker", "unpause", "pilot-gpu01"], check=True, capture_output=True)
        said = refused_unchanged(result)
        assert (
            "no controller of pilot holds its jobs' state (StateSaveLocation has no job_state and no slurmctld "
            f"answers), while its nodes run jobs - pilot-gpu02: job(s) {job}, and the nodes pilot-gpu01 could not be "
            "asked (unreachable, or the command failed there"
        ) in said, failures(result.stdout)
        assert f"slurmstepd: [{job}.batch]" in sh("pilot-gpu02", "pgrep -a -x slurmstepd")
        assert sh("pilot-ctl01", f"test -e {state} && echo made || echo absent") == "absent"
        # the same controller deployed alone (--limit): the nodes cannot be asked, and the run stops saying so
        limited = molecule("converge", "-s", "pilot", "--", "--limit", "pilot-ctl01")
        said = refused_unchanged(limited)
        assert (
            "and this run's --limit leaves out the nodes that could be running its jobs (pilot-gpu[01-02])"
        ) in said, failures(limited.stdout)
        assert f"slurmstepd: [{job}.batch]" in sh("pilot-gpu02", "pgrep -a -x slurmstepd")
        assert sh("pilot-ctl01", f"test -e {state} && echo made || echo absent") == "absent"
    finally:
        sh(
            "pilot-ctl01",
            f"test -e {state}.kept && rm -rf {state} && mv {state}.kept {state}; systemctl start slurmctld",
        )
    wait_for(
        f"job {job} running again", lambda: sh("pilot-ctl01", f"squeue -h -j {job} -o %T", check=False) == "RUNNING", 60
    )
    sh("pilot-ctl01", f"scancel {job}")


def test_a_renamed_accounting_database_is_refused_before_any_change(lab: Lab) -> None:
    """slurmdbd restarted with another StorageLoc makes a new, empty database: the cluster's job records, associations
    and fair-share usage out of its view. The dbd host's slurmdbd.conf and the tables of both databases are read right
    after the validation (playbooks/live_state.yml); the run stops naming the database to keep; nothing changed, the
    new database not made, slurmdbd still on its own."""
    result = molecule("converge", "-s", "pilot", "--", "-e", "accounting_db_name=acct_renamed")
    said = refused_unchanged(result)
    assert (
        "pilot-dbd01: slurmdbd writes the cluster's accounting to the database 'slurm_acct_db' (StorageLoc of "
        "/etc/slurm/slurmdbd.conf), which holds"
    ) in said, failures(result.stdout)
    assert "but accounting_db_name is 'acct_renamed', which holds no table" in said
    databases = docker_exec("pilot-dbd01", "mariadb", "-N", "-B", "-e", "SHOW DATABASES").split()
    assert "slurm_acct_db" in databases and "acct_renamed" not in databases, databases
    conf = docker_exec("pilot-dbd01", "grep", "^StorageLoc=", "/etc/slurm/slurmdbd.conf")
    assert conf.strip() == "StorageLoc=slurm_acct_db", conf


def test_a_purge_of_the_records_slurmdbd_keeps_is_refused_before_any_change(lab: Lab) -> None:
    """accounting_purge set on the running cluster without an Archive key: slurmdbd would delete the job records older
    than a month at its next purge, for good. Refused right after the validation, naming the key; nothing changed,
    slurmdbd.conf without the purge."""
    result = molecule("converge", "-s", "pilot", "--", "-e", json.dumps({"accounting_purge": {"PurgeJobAfter": "1"}}))
    said = refused_unchanged(result)
    assert (
        "pilot-dbd01: accounting_purge would have the running slurmdbd delete records it keeps now - PurgeJobAfter "
        "unset (kept for ever) -> 1 (ArchiveJobs not set)"
    ) in said, failures(result.stdout)
    assert "accounting_purge_confirm=slurm_acct_db" in said
    assert not sh("pilot-dbd01", "grep -i '^Purge' /etc/slurm/slurmdbd.conf || true").strip()


def test_a_release_the_hosts_do_not_run_is_refused_before_any_change(lab: Lab) -> None:
    """cluster_slurm_release moved on without upgrade-slurm.yml: the deploy would write 26.05's files for the hosts'
    24.11 (24.11's slurmctld stops on 26.05's MetricsType). The common role compares each host's installed Slurm with
    its release before the first change and names upgrade-slurm.yml."""
    if _suite["name"] != "trixie":
        pytest.skip("Debian 13's 24.11 asked for 26.05: checked once")
    result = molecule("converge", "-s", "pilot", "--", "-e", "cluster_slurm_release=26.05")
    said = refused_unchanged(result)
    assert "pilot-ctl01 runs Slurm 24.11 (" in said, failures(result.stdout)
    assert "pilot-gpu01 runs Slurm 24.11 (" in said
    assert "but cluster_slurm_release is '26.05'" in said and "playbooks/upgrade-slurm.yml" in said


def test_an_upgrade_slurm_does_not_support_is_refused_before_any_change(lab: Lab) -> None:
    before = {host: slurm_packages(host) for host in HOSTS}
    if _suite["name"] == "bookworm":  # 22.05 -> 24.11 skips 23.11, beyond 24.11's window
        result, expected = upgrade_slurm("24.11"), "Upgrade through 23.11 first (cluster_slurm_release: '23.11'"
    else:
        result, expected = upgrade_slurm("24.05"), "newer than cluster_slurm_release 24.05: Slurm cannot be downgraded"
    assert result.returncode != 0
    assert expected in result.stdout, failures(result.stdout)
    counters = recap(result.stdout)
    assert {host: counters[host]["changed"] for host in HOSTS} == dict.fromkeys(HOSTS, 0), changed_tasks(result.stdout)
    assert {host: slurm_packages(host) for host in HOSTS} == before


def test_upgrade_slurm_limited_to_a_compute_node_is_refused_before_any_change(lab: Lab) -> None:
    """slurmd must not run a newer release than slurmctld and slurmdbd: a --limit that leaves their hosts out
    stops at the first gate, naming them."""
    if _suite["name"] != "trixie":
        pytest.skip(CONTROLLER_ONLY)
    before = {host: slurm_packages(host) for host in HOSTS}
    result = molecule(
        "converge",
        "-s",
        "pilot",
        "--",
        "--limit",
        "pilot-gpu01",
        env={"GPUCLUSTER_LAB_PLAYBOOK": "upgrade-slurm.yml", "GPUCLUSTER_LAB_RELEASE": "26.05"},
    )
    assert result.returncode != 0
    expected = "it leaves out pilot-ctl01,pilot-dbd01. Run it with --limit 'dbd:controllers:<the hosts you meant>'"
    assert expected in " ".join(result.stdout.split()), failures(result.stdout)
    counters = recap(result.stdout)
    assert set(counters) <= {"localhost", "pilot-gpu01"}, counters
    assert all(host["changed"] == 0 for host in counters.values()), changed_tasks(result.stdout)
    assert {host: slurm_packages(host) for host in HOSTS} == before


def lifecycle(playbook: str, removed: str = "") -> subprocess.CompletedProcess[str]:
    """A lifecycle playbook as the scenario's side effect (remove-node.yml: ``removed`` is its
    cluster_removed_nodes)."""
    return molecule(
        "side-effect",
        "-s",
        "pilot",
        env={"GPUCLUSTER_LAB_SIDE_EFFECT": playbook, "GPUCLUSTER_LAB_REMOVED_NODES": removed},
    )


def lifecycle_check(playbook: str, removed: str = "") -> subprocess.CompletedProcess[str]:
    """A lifecycle playbook with --check --diff (the scenario's converge, with ansible-playbook's options)."""
    return molecule(
        "converge",
        "-s",
        "pilot",
        "--",
        "--check",
        "--diff",
        env={"GPUCLUSTER_LAB_PLAYBOOK": playbook, "GPUCLUSTER_LAB_REMOVED_NODES": removed},
    )


def restore(what: str, *args: str) -> subprocess.CompletedProcess[str]:
    """playbooks/restore.yml -e restore=``what`` (the scenario's converge, with ansible-playbook's options)."""
    return molecule(
        "converge", "-s", "pilot", "--", "-e", f"restore={what}", *args, env={"GPUCLUSTER_LAB_PLAYBOOK": "restore.yml"}
    )


def cut_in_half(host: str, path: str, copy: str) -> None:
    """The first half of ``path`` on ``host`` written to ``copy`` there: a backup cut short (a full disk, a copy
    stopped half-way)."""
    docker_exec(host, "bash", "-c", f"head -c $(( $(stat -c %s {path}) / 2 )) {path} >{copy}")


def cluster_tres(ctl: str) -> str:
    return docker_exec(ctl, "sacctmgr", "--noheader", "--parsable2", "show", "cluster", "format=TRES").strip()


def test_accounting_is_restored_from_the_scheduled_dump(lab: Lab) -> None:
    """The scheduled dump (its timer's service, run now), a restore refused over the live database, a dump cut short
    refused before anything changes, an import that fails half-way undone (the replaced database back, slurmdbd
    serving), the database lost (dropped), a deploy refused before it starts slurmdbd on the lost database,
    playbooks/restore.yml: sacct returns the same jobs as before and slurmdbd serves."""
    if _suite["name"] != "trixie":
        pytest.skip("the restore drill runs on Debian 13's 24.11")
    dbd, ctl = "pilot-dbd01", "pilot-ctl01"
    assert molecule_run.host(dbd).service("gpucluster-accounting-backup.timer").is_enabled
    history = "sacct --noheader --parsable2 --allocations --starttime=2020-01-01 --format=JobID,JobName,State"

    def accounted() -> set[str]:
        """The ended jobs sacct returns (none while slurmdbd does not answer)."""
        rows = subprocess.run(
            ["docker", "exec", ctl, "bash", "-c", history], capture_output=True, text=True, check=False
        )
        return {row for row in rows.stdout.splitlines() if "RUNNING" not in row} if rows.returncode == 0 else set()

    ended = accounted()
    assert len(ended) >= 5, ended
    docker_exec(dbd, "systemctl", "start", "gpucluster-accounting-backup.service")
    dumps = backups(dbd, "/var/backups/gpucluster/accounting", ".sql.gz")
    assert list(dumps.values()) == [0o600], dumps
    unsaid = restore("")
    assert unsaid.returncode != 0
    assert "say what it restores with -e restore=accounting" in " ".join(unsaid.stdout.split()), unsaid.stdout[-2000:]
    assert not set(recap(unsaid.stdout)) & set(HOSTS), "a managed host ran a task"
    refused = restore("accounting")
    assert refused.returncode != 0
    assert "-e accounting_restore_confirm=slurm_acct_db" in " ".join(refused.stdout.split()), failures(refused.stdout)
    dump = f"/var/backups/gpucluster/accounting/{next(iter(dumps))}"
    confirmed = ("-e", "accounting_restore_confirm=slurm_acct_db")
    # A dump cut short (a full disk, a copy stopped half-way): refused before slurmdbd stops, nothing changed.
    cut_in_half(dbd, dump, "/root/cut.sql.gz")
    cut = refused_unchanged(restore("accounting", "-e", "accounting_restore_dump=/root/cut.sql.gz", *confirmed))
    assert "/root/cut.sql.gz on pilot-dbd01 is not a whole dump" in cut, cut[-3000:]
    # A whole dump the import stops in (a statement MariaDB refuses half-way): the database it replaced comes back
    # from the copy the restore made first, and slurmdbd serves it again.
    docker_exec(
        dbd,
        "bash",
        "-c",
        f"gzip -dc {dump} | awk -v half=$(( $(gzip -dc {dump} | wc -l) / 2 )) "
        "'NR == half {print \"NOT A STATEMENT;\"} {print}' | gzip >/root/bad.sql.gz",
    )
    failed = restore("accounting", "-e", "accounting_restore_dump=/root/bad.sql.gz", *confirmed)
    said = " ".join(failed.stdout.split())
    assert failed.returncode != 0 and "Importing /root/bad.sql.gz into slurm_acct_db on pilot-dbd01 failed" in said, (
        failures(failed.stdout)
    )
    assert "The database it replaced is back from /var/backups/gpucluster/accounting/replaced-by-restore-" in said, (
        failures(failed.stdout)
    )
    assert molecule_run.host(dbd).service("slurmdbd").is_running
    kept = backups(dbd, "/var/backups/gpucluster/accounting", ".sql.gz")
    assert [mode for name, mode in kept.items() if name.startswith("replaced-by-restore-")] == [0o600], kept
    molecule_run.wait_for(
        "sacct to return every ended job from the database put back", lambda: ended <= accounted(), 120, 3
    )
    docker_exec(dbd, "mariadb", "-e", "DROP DATABASE slurm_acct_db")
    # A deploy on the lost database would register the cluster anew under another ClusterID (slurmctld would stop at
    # its next start: CLUSTER ID MISMATCH): it stops before slurmdbd, naming the restore.
    deploy = molecule("converge", "-s", "pilot")
    said = " ".join(deploy.stdout.split())
    assert deploy.returncode != 0 and "holds no cluster pilot" in said, failures(deploy.stdout)
    assert "restore=accounting" in said and "(CLUSTER ID MISMATCH)" in said, failures(deploy.stdout)
    # So does a run limited to the re-installed database host, which leaves the controllers out of the state check:
    # the accounting role reads their clustername files itself. (Its tags only: the lab keeps no facts between
    # runs, and a limited run without the other hosts' facts stops before /etc/hosts.)
    limited = molecule("converge", "-s", "pilot", "--", "--limit", dbd, "--tags", "accounting")
    said = " ".join(limited.stdout.split())
    assert limited.returncode != 0 and "holds no cluster pilot" in said, failures(limited.stdout)
    clusters = ["docker", "exec", dbd, "mariadb", "-N", "-B", "-e", "SELECT name FROM slurm_acct_db.cluster_table"]
    assert "pilot" not in subprocess.run(clusters, capture_output=True, text=True, check=False).stdout.split()
    start = time.monotonic()
    restored = restore("accounting")
    seconds = time.monotonic() - start
    assert restored.returncode == 0, failures(restored.stdout) + restored.stdout[-3000:]
    print(f"\npilot lab: playbooks/restore.yml restored the dropped accounting database in {seconds:.0f} s")
    molecule_run.wait_for(
        "sacct to return every ended job from the restored database", lambda: ended <= accounted(), 120, 3
    )
    assert (
        docker_exec(ctl, "sacctmgr", "--noheader", "--parsable2", "show", "cluster", "format=cluster").strip()
        == "pilot"
    )


def squeue_job(ctl: str, job: str) -> str:
    """'<state> <reason>' of a job in slurmctld's queue, '' when slurmctld does not know it."""
    return subprocess.run(
        ["docker", "exec", ctl, "squeue", "--noheader", "--format=%T %r", "--job", job],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()


def test_controller_state_is_restored_from_the_scheduled_archive(lab: Lab) -> None:
    """A held job in the queue, the scheduled archive of StateSaveLocation (its timer's service, run now), a restore
    refused while slurmctld runs, the state lost (StateSaveLocation emptied with slurmctld stopped),
    playbooks/restore.yml -e restore=controller-state: slurmctld starts with the held job under its id, job ids go
    on after it, and a second restore over the restored state is refused unless confirmed."""
    if _suite["name"] != "trixie":
        pytest.skip("the restore drill runs on Debian 13's 24.11")
    ctl = "pilot-ctl01"
    state = "/var/spool/slurmctld"
    held = docker_exec(ctl, "sbatch", "--parsable", "--hold", "--mem=100M", "--wrap", "true").strip()
    assert squeue_job(ctl, held).startswith("PENDING"), squeue_job(ctl, held)
    assert molecule_run.host(ctl).service("gpucluster-slurmctld-state-backup.timer").is_enabled
    asked = int(docker_exec(ctl, "date", "+%s"))
    docker_exec(ctl, "scontrol", "reconfigure")  # slurmctld saves its state at once on a reconfigure

    def saved() -> bool:
        stat = ["docker", "exec", ctl, "stat", "-c", "%Y", f"{state}/job_state"]
        answer = subprocess.run(stat, capture_output=True, text=True, check=False)
        return answer.returncode == 0 and int(answer.stdout) >= asked

    molecule_run.wait_for("slurmctld to save its job state after the reconfigure", saved, 60)
    # (the hourly timer may have archived already, when the lab has been up across the hour)
    archive_dir = "/var/backups/gpucluster/slurmctld-state"
    before = backups(ctl, archive_dir, ".tar.gz")
    docker_exec(ctl, "systemctl", "start", "gpucluster-slurmctld-state-backup.service")
    archives = {name: mode for name, mode in backups(ctl, archive_dir, ".tar.gz").items() if name not in before}
    assert list(archives.values()) == [0o600], (before, archives)
    refused = restore("controller-state")
    assert refused.returncode != 0
    assert "slurmctld runs on pilot-ctl01" in " ".join(refused.stdout.split()), failures(refused.stdout)
    docker_exec(ctl, "systemctl", "stop", "slurmctld")
    job_state = docker_exec(ctl, "md5sum", f"{state}/job_state").split()[0]
    newest = f"{archive_dir}/{next(iter(archives))}"
    confirmed = ("-e", "slurm_state_restore_confirm=pilot")
    # An archive cut short (copied half-way from elsewhere): refused before the state is touched.
    cut_in_half(ctl, newest, "/root/cut.tar.gz")
    cut = refused_unchanged(
        restore("controller-state", "-e", "slurm_state_restore_archive=/root/cut.tar.gz", *confirmed)
    )
    assert "/root/cut.tar.gz on pilot-ctl01 is not a whole archive of slurmctld's state" in cut, cut[-3000:]
    # An archive tar reads whole but cannot unpack (a member's name over the file system's 255 bytes): the state it
    # replaced comes back from the archive the restore made first - no half state left for slurmctld to start on.
    docker_exec(ctl, "python3", "-c", UNPACKABLE, newest, "/root/unpackable.tar.gz")
    failed = restore("controller-state", "-e", "slurm_state_restore_archive=/root/unpackable.tar.gz", *confirmed)
    said = " ".join(failed.stdout.split())
    assert failed.returncode != 0, failed.stdout[-3000:]
    assert f"Unpacking /root/unpackable.tar.gz into {state} on pilot-ctl01 failed" in said, failures(failed.stdout)
    assert f"The state it replaced is back from {archive_dir}/replaced-by-restore-" in said, failures(failed.stdout)
    assert docker_exec(ctl, "md5sum", f"{state}/job_state").split()[0] == job_state
    assert "x" * 300 not in docker_exec(ctl, "ls", "-a", state)
    docker_exec(
        ctl, "bash", "-c", f"find {state} -mindepth 1 -maxdepth 1 ! -name .gpucluster-shared -exec rm -rf {{}} +"
    )
    start = time.monotonic()
    restored = restore("controller-state")
    seconds = time.monotonic() - start
    assert restored.returncode == 0, failures(restored.stdout) + restored.stdout[-3000:]
    print(
        f"\npilot lab: playbooks/restore.yml -e restore=controller-state restored StateSaveLocation in {seconds:.0f} s"
    )
    again = restore("controller-state")
    assert again.returncode != 0
    assert "-e slurm_state_restore_confirm=pilot" in " ".join(again.stdout.split()), failures(again.stdout)
    docker_exec(ctl, "systemctl", "start", "slurmctld")
    deadline = time.monotonic() + 120
    while not squeue_job(ctl, held).startswith("PENDING"):
        assert time.monotonic() < deadline, f"job {held} is not in the restored queue"
        time.sleep(2)
    newer = docker_exec(ctl, "sbatch", "--parsable", "--mem=100M", "--wrap", "true").strip()
    assert int(newer) > int(held), (held, newer)
    docker_exec(ctl, "scontrol", "release", held)
    deadline = time.monotonic() + 120
    while squeue_job(ctl, held) or squeue_job(ctl, newer):
        assert time.monotonic() < deadline, "the restored and the new job did not complete"
        time.sleep(2)


# An archive of slurmctld's state that tar lists whole but cannot unpack: the members of argv[1] and one whose name is
# longer than a file name may be (ENAMETOOLONG), written to argv[2].
UNPACKABLE = """
import io, sys, tarfile
with tarfile.open(sys.argv[1]) as source, tarfile.open(sys.argv[2], "w:gz", format=tarfile.GNU_FORMAT) as target:
    for member in source.getmembers():
        target.addfile(member, source.extractfile(member) if member.isfile() else None)
    long = tarfile.TarInfo("./" + "x" * 300)
    long.size = 2
    target.addfile(long, io.BytesIO(b"x\\n"))
"""


def submitted(ctl: str, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", "exec", ctl, *command], capture_output=True, text=True, check=False)


def test_defaults_an_admin_relies_on(lab: Lab) -> None:
    """What Slurm's own test suite found fighting the admin (issue 31), by behaviour: a node an admin sets DOWN
    stays down when its slurmd registers again (ReturnToService=1); a job over the partition's MaxTime is refused
    at submission (EnforcePartLimits=ALL), not queued forever; the slurm user has an association and its job runs;
    plugstack.conf names its plugins instead of Debian's glob, which slurmctld in configless mode cannot parse."""
    ctl, node = "pilot-ctl01", "pilot-gpu02"

    def slurmd_started() -> str:
        found = re.search(r"SlurmdStartTime=(\S+)", docker_exec(ctl, "scontrol", "show", "node", node))
        return found.group(1) if found else ""

    before = slurmd_started()
    docker_exec(ctl, "scontrol", "update", f"nodename={node}", "state=down", "reason=maintenance")
    try:
        time.sleep(1)  # SlurmdStartTime has a resolution of one second
        docker_exec(node, "systemctl", "restart", "slurmd")
        deadline = time.monotonic() + 60
        while slurmd_started() == before:  # the new slurmd's registration has been processed
            assert time.monotonic() < deadline, f"{node}'s slurmd did not register again"
            time.sleep(1)
        shown = " ".join(docker_exec(ctl, "scontrol", "show", "node", node).split())
        assert "State=DOWN" in shown and "Reason=maintenance" in shown, shown
    finally:
        docker_exec(ctl, "scontrol", "update", f"nodename={node}", "state=resume")
    over = submitted(ctl, "sbatch", "--parsable", "--partition=gpu", "--time=02:00:00", "--mem=100M", "--wrap", "true")
    assert over.returncode != 0 and "time limit" in over.stderr.lower(), (over.stdout, over.stderr)
    associations = docker_exec(
        ctl, "sacctmgr", "--noheader", "--parsable2", "show", "assoc", "user=slurm", "format=account"
    )
    assert associations.split() == ["root"], associations
    job = submitted(
        ctl, "runuser", "-u", "slurm", "--", "sbatch", "--parsable", "--mem=100M", "--chdir=/tmp", "--wrap", "true"
    )
    assert job.returncode == 0, job.stderr
    deadline = time.monotonic() + 120
    while squeue_job(ctl, job.stdout.strip().split(";")[0]):
        assert time.monotonic() < deadline, f"the slurm user's job {job.stdout} did not complete"
        time.sleep(2)
    plugstack = docker_exec(ctl, "cat", "/etc/slurm/plugstack.conf").splitlines()
    assert not [line for line in plugstack if line.strip().lower().startswith("include")], plugstack
    log_file = "/var/log/slurm/slurmctld.log"
    lines_before = int(docker_exec(ctl, "wc", "-l", log_file).split()[0])
    docker_exec(ctl, "scontrol", "reconfigure")

    def reread() -> str:
        """slurmctld's log since the reconfigure, once the configuration is read again (24.11 re-executes and runs
        as the primary again; 22.05 completes the RPC)."""
        since = docker_exec(ctl, "tail", "-n", f"+{lines_before + 1}", log_file)
        done = "Running as primary controller" in since or "reconfigure_controller: completed" in since
        return since if done else ""

    log = molecule_run.wait_for("slurmctld to read its configuration again after scontrol reconfigure", reread, 60)
    assert "glob" not in log and "Include failed" not in log, log[-2000:]


# A connect scan in a few lines: each (host, port) probed at once; "open" (connected), "refused" (let through, no
# listener) or "filtered" (dropped: no answer in time).
SCAN = """
import concurrent.futures, json, socket, sys
def probe(target):
    with socket.socket() as s:
        s.settimeout(3)
        try:
            s.connect((target[0], target[1]))
            return "open"
        except socket.timeout:
            return "filtered"
        except ConnectionRefusedError:
            return "refused"
targets = json.loads(sys.argv[1])
with concurrent.futures.ThreadPoolExecutor(len(targets)) as pool:
    print(json.dumps(list(pool.map(probe, targets))))
"""


def listening(host: str) -> set[int]:
    """The TCP ports the host listens on beyond its loopback."""
    ports = set()
    for line in sh(host, "ss -ltnH").splitlines():
        address, _, port = line.split()[3].rpartition(":")
        if not address.startswith(("127.", "[::1]", "[::ffff:127.")):
            ports.add(int(port))
    return ports


def scan(source: str, targets: list[tuple[str, int]]) -> dict[tuple[str, int], str]:
    found = json.loads(sh(source, f"python3 -c {shlex.quote(SCAN)} {shlex.quote(json.dumps(targets))}", timeout=60))
    return dict(zip(targets, found, strict=True))


def test_the_firewall_opens_exactly_the_designed_ports(lab: Lab) -> None:
    """firewall_enabled (molecule/pilot: administrators from 192.0.2.0/24, no lab host): every TCP port any pilot
    host listens on, probed from a compute node and from the login node, answers exactly where docs/ports.md says;
    the rest is dropped (no answer), not refused. Ports the firewall lets through where nothing listens (srun's
    range, NFS - the lab serves none -, SSH on a compute node from the login node: the lab runs no sshd) are
    refused, not dropped; SSH to the dbd host from either is dropped (administrators only)."""
    ctl, dbd, gpu1, gpu2 = "pilot-ctl01", "pilot-dbd01", "pilot-gpu01", "pilot-gpu02"
    ports = {host: listening(host) for host in (ctl, dbd, gpu1, gpu2)}
    assert {6817, 6820} <= ports[ctl] and {6819, 9090} <= ports[dbd] and 6818 in ports[gpu1], ports
    # the site's local mirror on the dbd host, where the lab runs it (an opening of firewall_extra_openings)
    mirror = {8080} if local_mirror.built(local_mirror.DEFAULT_DIR) else set()
    designed = {
        # from a compute node: slurmctld and the REST API, slurmdbd, every port of another compute node
        gpu2: {ctl: {6817, 6820}, dbd: {6819} | mirror, gpu1: ports[gpu1]},
        # from the login node (also the controller): slurmdbd, slurmd on the compute nodes
        ctl: {dbd: {6819} | mirror, gpu1: {6818}, gpu2: {6818}},
    }
    let_through = {gpu2: [(ctl, 60001), (dbd, 2049)], ctl: [(gpu1, 60001), (dbd, 2049), (gpu1, 22)]}
    dropped = [(dbd, 22), (dbd, 3306)]
    for source, hosts in designed.items():
        listed = [(host, port) for host in hosts for port in sorted(ports[host])]
        found = scan(source, listed + let_through[source] + dropped)
        answered = {target for target, state in found.items() if state == "open"}
        expected = {(host, port) for host, open_ports in hosts.items() for port in open_ports}
        assert answered == expected, f"from {source}: open {sorted(answered)}, designed {sorted(expected)}"
        closed = {target: state for target, state in found.items() if target in listed and target not in expected}
        assert set(closed.values()) <= {"filtered"}, (source, closed)
        assert [found[target] for target in let_through[source]] == ["refused"] * len(let_through[source]), found
        assert [found[target] for target in dropped] == ["filtered", "filtered"], (source, found)
    table = sh(gpu1, "nft list table inet gpucluster")
    assert "policy drop" in table and "@compute4" in table, table


def test_job_mail_is_queued_for_the_inventorys_relay(lab: Lab) -> None:
    """sbatch --mail-type=END: slurmctld runs MailProg (mailx), which hands the message to nullmailer; the relay
    of cluster_mail (pilot-dbd01, where nothing listens) is unreachable, so the message waits in the controller's
    queue, addressed to alice at cluster_mail.domain, with Slurm's subject; slurmctld found its MailProg valid."""
    ctl = "pilot-ctl01"
    assert docker_exec(ctl, "cat", "/etc/nullmailer/remotes").strip() == "pilot-dbd01 smtp --port=25"
    job = submitted(
        ctl, "runuser", "-u", "alice", "--", "sbatch", "--parsable", "--mail-type=END", "--mem=100M",
        "--chdir=/tmp", "--wrap", "true",
    )  # fmt: skip
    assert job.returncode == 0, job.stderr
    job_id = job.stdout.strip().split(";")[0]

    queued = partial(sh, ctl, f"grep -l 'Job_id={job_id} ' /var/spool/nullmailer/queue/*", check=False)
    message_file = molecule_run.wait_for(f"the mail of job {job_id} in nullmailer's queue", queued, 120, every=2)
    message = docker_exec(ctl, "cat", message_file.splitlines()[0])
    envelope, _, body = message.partition("\n\n")
    assert "alice@lab.example" in envelope.splitlines()[1:], message
    assert re.search(rf"^Subject: Slurm Job_id={job_id} Name=wrap Ended, .*COMPLETED, ExitCode 0$", body, re.M), body
    invalid = sh(ctl, "grep -c 'MailProg is invalid' /var/log/slurm/slurmctld.log", check=False)
    assert invalid == "0", "slurmctld logged 'Configured MailProg is invalid'"


KNOWN_FAILURES = Path(__file__).with_name("slurm_testsuite_known.toml")
REPORTS = molecule_run.ROOT / "build" / "lab"


# A client of the REST API on a compute node: path, user name and token headers, JSON body -> [status, text].
REST_CLIENT = """
import json, sys, urllib.error, urllib.request
url, user, token, body = json.loads(sys.argv[1])
data = json.dumps(body).encode() if body else None
request = urllib.request.Request(url, data=data, method="POST" if body else "GET")
headers = {"X-SLURM-USER-NAME": user, "X-SLURM-USER-TOKEN": token, "Content-Type": "application/json" if body else ""}
for header, value in headers.items():
    if value:
        request.add_header(header, value)
try:
    with urllib.request.urlopen(request, timeout=60) as answer:
        print(json.dumps([answer.status, answer.read().decode()]))
except urllib.error.HTTPError as refused:
    print(json.dumps([refused.code, refused.read().decode()]))
"""


def rest(path: str, user: str = "", token: str = "", body: object = None) -> tuple[int, dict[str, Any]]:
    """A request to slurmrestd on pilot-ctl01 from pilot-gpu01: the HTTP status and the JSON answer ({} if none)."""
    request = json.dumps([f"http://pilot-ctl01:6820{path}", user, token, body])
    done = subprocess.run(
        ["docker", "exec", "pilot-gpu01", "python3", "-c", REST_CLIENT, request],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    status, text = json.loads(done.stdout)
    try:
        return int(status), json.loads(text)
    except json.JSONDecodeError:
        return int(status), {"text": text}


def test_rest_api_takes_a_users_token_and_refuses_any_other(lab: Lab) -> None:
    """cluster_rest_api: alice gets a token (`scontrol token`), submits a job over HTTP from a compute node and
    reads it back from slurmctld and from the accounting database (slurmdbd checks the token too); a request
    without a token, alice's token under another user's name and an expired token are refused. slurmrestd runs
    as its own user, and the key is on the controller and the dbd host only (0400 slurm)."""
    ctl, dbd = "pilot-ctl01", "pilot-dbd01"
    version = Release.parse(SUITES[_suite["name"]]).rest_api_version
    for host in (ctl, dbd):
        key = molecule_run.host(host).file("/etc/slurm/jwt_hs256.key")
        assert (key.user, key.mode, key.size) == ("slurm", 0o400, 32), host
    for host in ("pilot-gpu01", "pilot-gpu02"):
        assert not molecule_run.host(host).file("/etc/slurm/jwt_hs256.key").exists, f"{host} holds the JWT key"
    assert sh(ctl, "ps -o user= -C slurmrestd") == "slurmrestd"
    token = sh(ctl, "runuser -u alice -- scontrol token lifespan=600").removeprefix("SLURM_JWT=")

    script = "#!/bin/bash\necho submitted over REST"
    if int(version.rsplit(".", 1)[1]) <= 38:  # 22.05: the script beside the job, the environment as a mapping
        body: dict[str, Any] = {"script": script, "job": {"environment": {"PATH": "/usr/bin:/bin"}}}
    else:
        body = {"job": {"script": script, "environment": ["PATH=/usr/bin:/bin"]}}
    body["job"].update({"name": "rest-api", "current_working_directory": "/home/alice"})
    status, answer = rest(f"/slurm/{version}/job/submit", "alice", token, body)
    assert status == 200 and answer.get("job_id"), answer
    job_id = answer["job_id"]

    def state() -> str:
        status, answer = rest(f"/slurm/{version}/job/{job_id}", "alice", token)
        assert status == 200 and answer["jobs"][0]["user_name"] == "alice", answer
        return "COMPLETED" if "COMPLETED" in str(answer["jobs"][0]["job_state"]) else ""

    molecule_run.wait_for(f"job {job_id}, submitted over REST, to complete", state, 120, every=2)
    assert sh(ctl, f"cat /home/alice/slurm-{job_id}.out") == "submitted over REST"

    def accounted() -> bool:
        status, answer = rest(f"/slurmdb/{version}/job/{job_id}", "alice", token)
        assert status == 200, answer
        return bool(answer.get("jobs")) and answer["jobs"][0]["user"] == "alice"

    molecule_run.wait_for(f"job {job_id} in the accounting database, read over REST", accounted, 60, every=2)

    expired = sh(ctl, "scontrol token username=alice lifespan=1").removeprefix("SLURM_JWT=")
    status, answer = rest(f"/slurm/{version}/jobs", "alice", token)
    assert status == 200 and job_id in [job["job_id"] for job in answer["jobs"]], answer

    def refused(user: str, key: str) -> bool:
        """An error status (401 or 511 on 24.11) or an error answer, and never the job list."""
        status, answer = rest(f"/slurm/{version}/jobs", user, key)
        return bool((status >= 400 or answer.get("errors")) and not answer.get("jobs"))

    assert refused("", ""), "no token"
    assert refused("root", token), "alice's token as root"
    # a token of one second: refused once its second is over (waited for on the answer, not slept)
    molecule_run.wait_for("alice's one-second token to be refused", lambda: refused("alice", expired), 15)


def test_slurms_own_test_suite_fails_only_where_the_table_says_why(lab: Lab) -> None:
    """SchedMD's test suite (testsuite/python of the Slurm source Debian ships) in local-config mode, as alice on
    the controller with passwordless sudo for the run, one pytest per module (lab/slurm_testsuite.py). Every
    failure must be in tests/lab/slurm_testsuite_known.toml with the reason it cannot pass here, and the passes
    must not fall below the count recorded there; the report (passed/failed/skipped by reason) is printed and
    kept in build/lab/."""
    if _suite["name"] != "trixie":
        pytest.skip(
            "run on Debian 13's lab (Slurm 24.11), the release issue 31 measured; 22.05's suite would add 4 minutes"
        )
    release = SUITES[_suite["name"]]
    table = tomllib.loads(KNOWN_FAILURES.read_text(encoding="utf-8"))["release"][release]
    known: dict[str, str] = table["known"]
    deselect: list[str] = table.get("deselect", [])  # each a known failure (tests/unit/test_slurm_testsuite.py)
    directory = slurm_testsuite.fetch(_suite["name"])
    summary, seconds = slurm_testsuite.run("pilot-ctl01", "alice", directory, deselect=deselect)
    report = summary.report(release, known)
    report += "".join(f"\nnot run (a known failure that only waits out a limit): {test}" for test in deselect)
    slowest = sorted(seconds.items(), key=lambda item: -item[1])[:5]
    report += f"\n{sum(seconds.values()):.0f} s in all; slowest modules: " + ", ".join(
        f"{module} {took:.0f} s" for module, took in slowest
    )
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / f"slurm-testsuite-{release}.txt").write_text(report + "\n", encoding="utf-8")
    print(f"\n{report}")
    unexplained = summary.unexplained(known)
    assert not unexplained, "failures of Slurm's test suite that the table does not explain:\n" + "\n".join(
        f"{o.test}: {o.message[:500]}" for o in unexplained
    )
    passed = summary.passed_outside(known)
    assert passed >= table["passed_at_least"], (
        f"{passed} of the tests the table does not list passed, fewer than the {table['passed_at_least']} recorded"
    )


def removal_refused_while_slurmctld_is_down(ctl: str, job: str) -> None:
    """slurmctld does not answer (as during a failover) when remove-node.yml asks about the node: the run stops,
    naming why, and the node keeps its configuration, its state and its running job."""
    job = job.strip()
    deadline = time.monotonic() + 120
    while docker_exec(ctl, "squeue", "--noheader", "--format=%T", "--job", job).strip() != "RUNNING":
        assert time.monotonic() < deadline, f"job {job} did not start on pilot-gpu02"
        time.sleep(2)
    docker_exec(ctl, "systemctl", "stop", "slurmctld")
    try:
        refused = lifecycle("remove-node.yml", "pilot-gpu02")
    finally:
        docker_exec(ctl, "systemctl", "start", "slurmctld")
    assert refused.returncode != 0
    message = " ".join(refused.stdout.split())
    assert "slurmctld did not answer about pilot-gpu02" in message, failures(refused.stdout)
    assert "Unable to contact slurm controller" in message, failures(refused.stdout)
    deadline = time.monotonic() + 60
    while (
        "is UP"
        not in subprocess.run(
            ["docker", "exec", ctl, "scontrol", "ping"], capture_output=True, text=True, check=False
        ).stdout
        and time.monotonic() < deadline
    ):
        time.sleep(2)
    assert docker_exec(ctl, "squeue", "--noheader", "--format=%T %N", "--job", job).split() == [
        "RUNNING",
        "pilot-gpu02",
    ]
    node = docker_exec(ctl, "scontrol", "show", "node", "pilot-gpu02")  # still configured (check=True)
    assert "DRAIN" not in node, node
    docker_exec(ctl, "scancel", job)
    deadline = time.monotonic() + 60
    while docker_exec(ctl, "squeue", "--noheader", "--job", job).strip() and time.monotonic() < deadline:
        time.sleep(2)


def test_remove_node_waits_for_its_job_then_scale_brings_it_back(lab: Lab) -> None:
    """remove-node.yml takes pilot-gpu02 out while a job runs there (it waits for the job), scale.yml adds it
    back; both leave the other node's jobs alone and a second run of each changes nothing."""
    if _suite["name"] != "trixie":
        pytest.skip("the remove/scale drill runs on Debian 13's 24.11 (scontrol reconfigure takes node changes)")
    ctl = "pilot-ctl01"
    tres_before = cluster_tres(ctl)
    assert "node=2" in tres_before, tres_before
    # --check --diff first: the gates and what would change; the node stays in the cluster, not drained.
    checked = lifecycle_check("remove-node.yml", "pilot-gpu02")
    assert checked.returncode == 0, failures(checked.stdout) + checked.stdout[-4000:]
    nodes = docker_exec(ctl, "sinfo", "--noheader", "--Node", "--format=%N %T").split()
    # (one line per node and partition)
    assert set(nodes[0::2]) == {"pilot-gpu01", "pilot-gpu02"}, nodes
    assert not any("drain" in state for state in nodes[1::2]), nodes
    small = ("sbatch", "--parsable", "--mem=100M", "--gres=gpu:h100:1")
    # (an hour: the drill takes 10-20 minutes under load, and this job must outlive it; cancelled at the end)
    on_staying = docker_exec(ctl, *small, "--nodelist=pilot-gpu01", "--wrap=sleep 3600").strip()
    removal_refused_while_slurmctld_is_down(ctl, docker_exec(ctl, *small, "--nodelist=pilot-gpu02", "--wrap=sleep 900"))
    on_leaving = docker_exec(ctl, *small, "--nodelist=pilot-gpu02", "--wrap=sleep 30").strip()
    start = time.monotonic()
    removed = lifecycle("remove-node.yml", "pilot-gpu02")
    print(f"\npilot lab: remove-node.yml took {time.monotonic() - start:.0f} s (one 30 s job to wait for)")
    assert removed.returncode == 0, failures(removed.stdout) + removed.stdout[-4000:]
    history = "sacct --noheader --parsable2 --allocations --format=JobID,State,NodeList -j {}"
    assert docker_exec(ctl, "bash", "-c", history.format(on_leaving)).strip() == f"{on_leaving}|COMPLETED|pilot-gpu02"
    assert docker_exec(ctl, "squeue", "--noheader", "--format=%T", "--job", on_staying).strip() == "RUNNING"
    known = subprocess.run(
        ["docker", "exec", ctl, "scontrol", "show", "node", "pilot-gpu02"], capture_output=True, check=False
    )
    assert known.returncode != 0
    assert set(docker_exec(ctl, "sinfo", "--noheader", "--Node", "--format=%N").split()) == {"pilot-gpu01"}
    is_enabled = ["docker", "exec", "pilot-gpu02", "systemctl", "is-enabled", "slurmd"]
    slurmd = subprocess.run(is_enabled, capture_output=True, text=True, check=False)
    assert slurmd.stdout.strip() == "disabled", slurmd.stdout
    deadline = time.monotonic() + 60
    while "node=1" not in cluster_tres(ctl) and time.monotonic() < deadline:
        time.sleep(5)
    assert "node=1" in cluster_tres(ctl), cluster_tres(ctl)
    again = lifecycle("remove-node.yml", "pilot-gpu02")
    assert again.returncode == 0, failures(again.stdout)
    assert sum(counters["changed"] for counters in recap(again.stdout).values()) == 0, changed_tasks(again.stdout)
    refused = lifecycle("remove-node.yml", "pilot-gpu09")
    assert refused.returncode != 0
    assert "cluster_removed_nodes: pilot-gpu09 is not in the inventory's compute group" in refused.stdout

    checked = lifecycle_check("scale.yml")
    assert checked.returncode == 0, failures(checked.stdout) + checked.stdout[-4000:]
    assert set(docker_exec(ctl, "sinfo", "--noheader", "--Node", "--format=%N").split()) == {"pilot-gpu01"}
    start = time.monotonic()
    scaled = lifecycle("scale.yml")
    print(f"\npilot lab: scale.yml took {time.monotonic() - start:.0f} s (one node)")
    assert scaled.returncode == 0, failures(scaled.stdout) + scaled.stdout[-4000:]
    counters = recap(scaled.stdout)
    assert counters["pilot-gpu01"]["changed"] == 0, changed_tasks(scaled.stdout)
    assert docker_exec(ctl, "squeue", "--noheader", "--format=%T", "--job", on_staying).strip() == "RUNNING"
    both = docker_exec(ctl, "srun", "--nodes=2", "--mem=100M", "--gres=gpu:h100:1", "--time=2", "hostname").split()
    assert sorted(both) == ["pilot-gpu01", "pilot-gpu02"], both
    assert "node=2" in cluster_tres(ctl)
    again = lifecycle("scale.yml")
    assert again.returncode == 0, failures(again.stdout)
    assert sum(counters["changed"] for counters in recap(again.stdout).values()) == 0, changed_tasks(again.stdout)
    docker_exec(ctl, "scancel", on_staying)


def test_jobs_that_ask_for_no_memory_share_a_node(lab: Lab) -> None:
    """The gpu partition's DefMemPerGPU comes from the node type (2,048 MB for 4 GPUs: 512 MB a GPU): two 1-GPU
    jobs without --mem run at once on one node. Without it each would be given the node's whole memory and the
    second would wait for the first."""
    ctl = "pilot-ctl01"
    partition = docker_exec(ctl, "scontrol", "show", "partition", "gpu", "--oneliner")
    assert "DefMemPerGPU=512" in partition, partition
    submit = ("sbatch", "--parsable", "--partition=gpu", "--gres=gpu:h100:1", "--nodelist=pilot-gpu01", "--time=2")
    jobs = [docker_exec(ctl, *submit, "--wrap=sleep 120").strip() for _ in range(2)]
    try:
        states: list[str] = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            states = [docker_exec(ctl, "squeue", "--noheader", "--format=%T %r", "--job", job).strip() for job in jobs]
            if all(state.startswith("RUNNING") for state in states):
                break
            time.sleep(2)
        assert all(state.startswith("RUNNING") for state in states), f"both jobs should run at once: {states}"
        for job in jobs:
            assert "mem=512M" in docker_exec(ctl, "scontrol", "show", "job", job), job
    finally:
        docker_exec(ctl, "scancel", *jobs)


# Run in a job step: each GPU device file of the node and what opening it gave, then the step's GPUs and its
# devices cgroup (shared with the slurm role's scenario).
GPU_PROBE = (Path(__file__).resolve().parents[2] / "molecule" / "shared" / "gpu_probe.py").read_text()


def assert_step_opens_its_gpus_only(lines: list[str], count: int) -> None:
    """What a GPU probe printed in a step (GPU_PROBE, or APPTAINER_PROBE in a container): the step's own ``count``
    GPUs opened as far as the missing driver (ENXIO), the node's other ones refused by the step's devices cgroup
    (EPERM), all 4 tried, CUDA_VISIBLE_DEVICES counting the step's GPUs from 0."""
    opened = dict(line.split() for line in lines if line.startswith("/dev/nvidia"))
    visible, step = next(line for line in lines if line.startswith("visible ")).split()[1::2]
    own = {f"/dev/nvidia{index}" for index in step.split(",")}
    assert len(own) == count and visible == ",".join(str(i) for i in range(count)), lines
    assert opened == {path: "ENXIO" if path in own else "EPERM" for path in opened} and len(opened) == 4, lines


def test_a_job_is_confined_to_its_gpus_and_its_memory(lab: Lab) -> None:
    """cgroup.conf's ConstrainDevices and ConstrainRAMSpace (slurm_cgroup_config, on by default and in the lab).
    The lab's GPUs have no driver, so the two outcomes of opening one tell the cgroup's answer apart: ENXIO (the
    devices cgroup let the open through, no driver answered) for the step's own GPUs, EPERM (the cgroup refused)
    for the node's others. A job writing past its --mem is killed inside its own memory cgroup (OUT_OF_MEMORY)
    while a job beside it on the node runs on and the node stays in service."""
    ctl, node = "pilot-ctl01", "pilot-gpu01"
    sh(ctl, f"printf %s {shlex.quote(GPU_PROBE)} > /home/alice/gpu-probe.py && chown alice /home/alice/gpu-probe.py")
    srun = f"runuser -u alice -- srun --chdir=/home/alice --nodelist={node} --time=2 --immediate=120"
    for count in (1, 2):
        lines = sh(ctl, f"{srun} --gres=gpu:h100:{count} python3 gpu-probe.py").splitlines()
        assert_step_opens_its_gpus_only(lines, count)
        # Slurm's cgroup v1 tree of this node (/slurm_<node>, Debian builds with multiple-slurmd support): the
        # lab's containers share the host's hierarchy, each node its own branch of it.
        assert re.fullmatch(rf"cgroup \d+:devices:/slurm_{node}/uid_\d+/job_\d+/step_\d+/task_0", lines[-1]), lines

    submit = f"runuser -u alice -- sbatch --parsable --chdir=/home/alice --nodelist={node} --time=3 --gres=gpu:h100:1"
    neighbour = sh(ctl, f"{submit} --mem=100M --wrap='sleep 300'")
    try:
        running = f"squeue --noheader --format=%T --job {neighbour}"
        wait_for("the neighbour job to run", lambda: sh(ctl, running) == "RUNNING")
        greedy = sh(
            ctl,
            f"{submit} --mem=64M --wait --output=/dev/null --wrap='python3 -c \"bytearray(400 * 2**20)\"'",
            check=False,
            timeout=200,
        )
        job = greedy.splitlines()[0]
        state = wait_for(
            "the greedy job's end in the accounting database",
            lambda: sh(ctl, f"sacct --noheader --allocations --parsable2 --format=State --jobs={job}") or None,
        )
        assert state == "OUT_OF_MEMORY", f"job {job}: {state}"
        assert sh(ctl, running) == "RUNNING", "the neighbour job should run on"
        # not drained or down: mixed or allocated (a trailing "-": backfill has planned a pending job there)
        assert sh(ctl, f"sinfo --noheader --nodes={node} --format=%T").removesuffix("-") in {"mixed", "allocated"}
        assert molecule_run.host(node).service("slurmd").is_running
    finally:
        sh(ctl, f"scancel {neighbour}")


# A user's image without a registry: a busybox root filesystem as a tarball (what `docker export` gives), made as
# alice on the controller (the prepare step's static busybox) in a directory of her shared home.
def busybox_rootfs_tar(directory: str, name: str) -> None:
    script = (
        f"set -e; mkdir -p {directory}; cd {directory}; rm -rf tree; mkdir -p tree/bin tree/etc tree/dev tree/proc"
        " tree/sys tree/tmp; cp /bin/busybox tree/bin/; for tool in sh cat ls; do ln -s busybox tree/bin/$tool;"
        f" done; echo 'NAME=\"{name}\"' > tree/etc/os-release; tar -C tree -cf rootfs.tar .; rm -rf tree"
    )
    sh("pilot-ctl01", f"runuser -u alice -- bash -c {shlex.quote(script)}")


# Run in an Apptainer container (busybox: no Python): each GPU device file and what opening it gave.
APPTAINER_PROBE = """
. /etc/os-release; echo "image $NAME"
for path in /dev/nvidia[0-9]*; do
  said=$(cat "$path" 2>&1 </dev/null) && { echo "$path opened"; continue; }
  case "$said" in
    *"No such device or address"*) echo "$path ENXIO" ;;
    *"Operation not permitted"*) echo "$path EPERM" ;;
    *) echo "$path other" ;;
  esac
done
echo "visible ${CUDA_VISIBLE_DEVICES:--} step ${SLURM_STEP_GPUS:--}"
"""


def test_an_apptainer_step_opens_its_own_gpus_only(lab: Lab) -> None:
    """Apptainer from Debian unstable on the Debian 13 pilot (containers_apptainer_repository, pinned): alice's
    image is built from a root filesystem tarball on /home, no registry, and a 2-GPU step runs `apptainer exec
    --nv` in it. Inside the container the step's two GPUs open as far as the missing driver (ENXIO) and the node's
    other two are refused by the step's devices cgroup (EPERM); CUDA_VISIBLE_DEVICES is 0,1. Nothing else of
    unstable reached the node: its pin keeps every other package of unstable below Debian 13's."""
    if _suite["name"] != "trixie":
        pytest.skip("Apptainer comes from Debian unstable, whose build needs Debian 13's C library")
    ctl, node, work = "pilot-ctl01", "pilot-gpu01", "/home/alice/apptainer-check"
    # installed packages that only unstable carries (apt list names each version's suites)
    from_unstable = sh(node, "apt list --installed 2>/dev/null | grep '/unstable,now' | cut -d/ -f1", check=False)
    assert from_unstable.split() == ["apptainer"], from_unstable
    busybox_rootfs_tar(work, "gpucluster-lab-apptainer")
    srun = f"runuser -u alice -- srun --chdir={work} --nodelist={node} --time=5 --immediate=120"
    sh(ctl, f"runuser -u alice -- bash -c 'cd {work} && rm -rf rootfs && mkdir rootfs && tar -xf rootfs.tar -C rootfs'")
    sh(ctl, f"{srun} --gres=gpu:h100:1 apptainer build --force image.sif rootfs/", timeout=300)
    sh(ctl, f"printf %s {shlex.quote(APPTAINER_PROBE)} > {work}/probe.sh && chown alice {work}/probe.sh")
    lines = sh(ctl, f"{srun} --gres=gpu:h100:2 apptainer exec --nv image.sif sh probe.sh").splitlines()
    assert lines[0] == "image gpucluster-lab-apptainer", lines
    assert_step_opens_its_gpus_only(lines, 2)


def test_apptainer_came_from_the_sites_local_mirror_and_its_signature_counts(lab: Lab) -> None:
    """The site's local Debian mirror (lab/local_mirror.py: Apptainer copied from Debian unstable, its Release
    signed with the mirror's own key), served from the storage host: each compute node installed Apptainer from
    it (apt's policy names the mirror, the mirror's log the package fetched by each node) with the mirror's key in
    the source's Signed-By, and apt refuses the same mirror under another key."""
    if _suite["name"] != "trixie":
        pytest.skip("Apptainer comes from Debian unstable, whose build needs Debian 13's C library")
    if not local_mirror.built(local_mirror.DEFAULT_DIR):
        pytest.skip("the lab's local mirror was not built (the lab was brought up by hand): Debian's archive served it")
    nodes, mirror = ("pilot-gpu01", "pilot-gpu02"), "http://pilot-dbd01:8080/debian"
    for node in nodes:
        policy = sh(node, "apt-cache policy apptainer")
        assert f"{mirror} sid/main amd64 Packages" in policy and "deb.debian.org" not in policy, policy
        source = sh(node, "cat /etc/apt/sources.list.d/gpucluster-apptainer.sources")
        assert "Signed-By:" in source and "BEGIN PGP PUBLIC KEY BLOCK" in source, source
    log = sh("pilot-dbd01", "journalctl -u lab-mirror --no-pager -o cat")
    for node in nodes:
        address = sh("pilot-dbd01", f"getent ahostsv4 {node} | head -n 1 | cut -d' ' -f1")
        assert re.search(
            rf"^{re.escape(address)} .*GET /debian/pool/main/apptainer_\S+\.deb HTTP/1\.1\" 200", log, re.M
        ), (
            node,
            log[-2000:],
        )
    # The same mirror with Debian's archive key in Signed-By instead of the mirror's: apt does not trust it.
    other = (
        "apt-get update -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/tmp/other-key "
        "-o Dir::State::Lists=/tmp/other-key-lists 2>&1"
    )
    sh(
        nodes[0],
        "mkdir -p /tmp/other-key /tmp/other-key-lists/partial && printf '%s\\n' 'Types: deb' "
        f"'URIs: {mirror}' 'Suites: sid' 'Components: main' "
        "'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' > /tmp/other-key/mirror.sources",
    )
    refused = sh(nodes[0], other, check=False)
    sh(nodes[0], "rm -rf /tmp/other-key /tmp/other-key-lists")
    assert "is not signed" in refused or "NO_PUBKEY" in refused or "Missing key" in refused, refused


def test_users_pip_installs_from_the_sites_package_index(lab: Lab) -> None:
    """user_env_pip_index_url (molecule/pilot, where the lab's mirror runs): /etc/pip.conf names the site's index on
    the compute nodes, and alice's pip, in a venv of her own on /home, installs a package that exists on that index
    only - the mirror's log shows the node fetching it."""
    if not local_mirror.built(local_mirror.DEFAULT_DIR):
        pytest.skip("the lab's local mirror was not built (the lab was brought up by hand): pip is left alone")
    node, index = "pilot-gpu01", "http://pilot-dbd01:8080/pypi/simple"
    conf = sh(node, "cat /etc/pip.conf")
    assert f"index-url = {index}" in conf and "trusted-host = pilot-dbd01" in conf, conf
    venv = "/home/alice/pip-check"
    installed = sh(
        node,
        f"runuser -l alice -c 'rm -rf {venv} && python3 -m venv {venv} && {venv}/bin/pip install -q "
        f'{local_mirror.PROBE} && {venv}/bin/python -c "import gpucluster_lab_probe as p; print(p.SOURCE)"\'',
        timeout=300,
    )
    assert installed.splitlines()[-1] == "the site's package index", installed
    address = sh("pilot-dbd01", f"getent ahostsv4 {node} | head -n 1 | cut -d' ' -f1")
    log = sh("pilot-dbd01", "journalctl -u lab-mirror --no-pager -o cat")
    fetched = rf'^{re.escape(address)} .*"GET /pypi/packages/{re.escape(local_mirror.PROBE_WHEEL)} HTTP/1\.1" 200'
    assert re.search(fetched, log, re.M), log[-2000:]


def test_each_job_has_its_own_tmp_and_shm_gone_with_it(lab: Lab) -> None:
    """cluster_job_tmpfs (molecule/pilot; job_container/tmpfs): a job's /tmp and /dev/shm are its own - its steps
    share them, another job of the same user on the same node sees neither, nor does the node - and its directory
    under base_path goes when it ends."""
    ctl, node = "pilot-ctl01", "pilot-gpu01"
    # base_path/<node>/<job>: Debian builds Slurm with multiple-slurmd support, which adds the node's name
    base = f"{JobTmpfs().base_path}/{node}"
    # On in the pilot lab (molecule/pilot: the prepare's lab/ns_batches.sh lets this kernel pin the jobs' namespaces)
    assert "job_container/tmpfs" in sh(ctl, "scontrol show config | grep -i '^JobContainerType'")
    options = f"--chdir=/home/alice --nodelist={node} --time=3 --mem=100M --gres=gpu:h100:1"
    write_mine = "echo first > /tmp/mine; echo first > /dev/shm/mine"
    first = sh(
        ctl, f"runuser -u alice -- sbatch --parsable {options} --output=/dev/null --wrap='{write_mine}; sleep 300'"
    )
    try:
        wait_for("the first job to run", lambda: sh(ctl, f"squeue --noheader --format=%T --job {first}") == "RUNNING")
        wait_for(f"{base}/{first} on {node}", lambda: sh(node, f"test -d {base}/{first} && echo yes", check=False))
        srun = f"runuser -u alice -- srun {options} --immediate=120"
        own = wait_for(
            "the first job's files, read by a step of its own",
            lambda: sh(ctl, f"{srun} --jobid={first} --overlap cat /tmp/mine /dev/shm/mine", check=False),
        )
        assert own.splitlines() == ["first", "first"], own
        other = sh(ctl, f"{srun} sh -c 'cat /tmp/mine /dev/shm/mine 2>&1; echo second > /tmp/mine'", check=False)
        assert "first" not in other and other.count("No such file") == 2, other
        assert "No such file" in sh(node, "cat /tmp/mine /dev/shm/mine 2>&1", check=False)
    finally:
        sh(ctl, f"scancel {first}")
    wait_for(f"{base}/{first} gone from {node}", lambda: sh(node, f"test -e {base}/{first} || echo gone", check=False))


def test_account_limits_coordinators_and_partitions_hold(lab: Lab) -> None:
    """accounting_accounts/accounting_users (molecule/pilot): vision under research, GrpTRES gres/gpu=2 and
    MaxSubmitJobs=3, coordinated by bob; carol in vision, on the gpu partition only. Two of carol's 1-GPU jobs
    run and the third waits on the account's GPU limit; a fourth is refused at submission; a job in scavenger
    is refused (no association there); alice cannot cancel carol's job, bob, the coordinator, can."""
    ctl = "pilot-ctl01"
    tree = sh(ctl, "sshare --all --parsable2 --noheader --format=Account,User")
    assert "research|" in tree and " vision|" in tree and " vision|carol" in tree, tree
    assert sh(ctl, "sacctmgr --noheader --parsable2 show assoc where user=carol format=Account,Partition") == (
        "vision|gpu"
    )

    def as_user(user: str, command: str) -> str:
        return sh(ctl, f"cd /tmp && runuser -u {user} -- {command} 2>&1; echo rc=$?", check=False)

    submit = "sbatch --parsable --gres=gpu:h100:1 --time=5 --output=/dev/null --wrap='sleep 300'"
    jobs = [as_user("carol", submit).splitlines()[0] for _ in range(3)]
    try:
        assert all(job.isdigit() for job in jobs), jobs

        def states() -> list[str] | None:
            found = [sh(ctl, f"squeue --noheader --format='%T %r' --job {job}") for job in jobs]
            return found if found[:2] == ["RUNNING None"] * 2 and found[2].startswith("PENDING") else None

        wait_for("two of carol's jobs running and the third pending", states, timeout=90)
        # the third waits on the account's GPU limit until a GPU of the group is free
        wait_for(
            "the third job's reason to be the account's GPU limit",
            lambda: sh(ctl, f"squeue --noheader --format=%r --job {jobs[2]}") == "AssocGrpGRES",
            # the reason is set by a scheduling pass: the main scheduler's runs at least once a minute (sched_interval)
            timeout=90,
        )
        refused = as_user("carol", submit)
        assert "Job violates accounting/QOS policy" in refused and not refused.endswith("rc=0"), refused
        elsewhere = as_user("carol", submit.replace("sbatch", "sbatch --partition=scavenger"))
        assert "Invalid account or account/partition combination" in elsewhere, elsewhere
        denied = as_user("alice", f"scancel {jobs[0]}")
        assert "Access/permission denied" in denied, denied
        assert sh(ctl, f"squeue --noheader --format=%T --job {jobs[0]}") == "RUNNING"
        cancelled = as_user("bob", f"scancel {jobs[0]}")
        assert cancelled.endswith("rc=0"), cancelled
        wait_for(
            "bob's cancel of carol's job",
            lambda: sh(ctl, f"squeue --noheader --format=%T --job {jobs[0]}", check=False) in ("", "COMPLETING"),
            timeout=60,
        )
    finally:
        sh(ctl, f"scancel {' '.join(job for job in jobs if job.isdigit())}", check=False)


RESERVATION = {"name": "lab-vision", "nodes": "pilot-gpu02", "start": "now", "duration": 30, "accounts": ["vision"]}


def reservations_run(reservations: list[dict[str, Any]], *args: str) -> subprocess.CompletedProcess[str]:
    """The deploy playbook's reservations play alone, with ``reservations`` as slurm_reservations."""
    extra = json.dumps({"slurm_reservations": reservations})
    return molecule("converge", "-s", "pilot", "--", "--tags", "reservations", "-e", extra, *args)


def test_a_reservation_holds_its_node_for_its_account_then_goes_with_the_inventory(lab: Lab) -> None:
    """slurm_reservations: lab-vision holds pilot-gpu02 for the account vision. Of alice's (ml) two 4-GPU jobs one
    runs on pilot-gpu01 and the other waits, while carol's job in the reservation runs on pilot-gpu02. A second
    run and a check run change nothing; removed from the inventory, the reservation is deleted. On Debian 13 only,
    for CI time: it passed on 22.05 and 24.11 alike in the full run of 2026-11-26."""
    if _suite["name"] != "trixie":
        pytest.skip("reservations behave alike on the releases in scope: checked once, on Debian 13")
    ctl = "pilot-ctl01"
    made = reservations_run([RESERVATION])
    assert made.returncode == 0, failures(made.stdout)
    shown = sh(ctl, "scontrol show reservation=lab-vision --oneliner")
    assert "Nodes=pilot-gpu02 " in shown and "Accounts=vision " in shown, shown
    for args in ((), ("--check",)):
        again = reservations_run([RESERVATION], *args)
        assert again.returncode == 0 and recap(again.stdout)[ctl]["changed"] == 0, changed_tasks(again.stdout)

    def submit(user: str, *options: str) -> str:
        job = sh(
            ctl,
            f"cd /tmp && runuser -u {user} -- sbatch --parsable --time=5 --output=/dev/null "
            f"{' '.join(options)} --wrap='sleep 300'",
        )
        assert job.isdigit(), job
        return job

    jobs: list[str] = []
    try:
        jobs += [submit("alice", "--gres=gpu:h100:4") for _ in range(2)]

        def alice_placed() -> list[str] | None:
            found = sorted(sh(ctl, f"squeue --noheader --format='%T %N' --job {job}") for job in jobs[:2])
            return found if found == ["PENDING", "RUNNING pilot-gpu01"] else None

        wait_for("one of alice's jobs running on pilot-gpu01 and the other pending", alice_placed, timeout=90)
        jobs.append(submit("carol", "--reservation=lab-vision", "--gres=gpu:h100:1"))
        wait_for(
            "carol's job in the reservation running on pilot-gpu02",
            lambda: sh(ctl, f"squeue --noheader --format='%T %N' --job {jobs[2]}") == "RUNNING pilot-gpu02",
            timeout=90,
        )
        assert alice_placed(), "an alice job started on the reserved node"
    finally:
        sh(ctl, f"scancel {' '.join(jobs)}", check=False)
    gone = reservations_run([])
    assert gone.returncode == 0, failures(gone.stdout)
    assert "Reservation lab-vision not found" in sh(ctl, "scontrol show reservation=lab-vision 2>&1", check=False)


PILOT_VARS = (
    Path(__file__).resolve().parents[2] / "molecule" / "pilot" / "inventory" / "group_vars" / "all" / "cluster.yml"
)


def policy_drill_vars() -> dict[str, Any]:
    """The pilot's inventory with the scheduling policies the drill watches at work (everything else as it is):
    preemption by QOS (high preempts batch by requeue, spot by cancel, standby by suspension; none younger than 20
    s), fair share between teama (1 share, alice) and teamb (4 shares, bob) on fair-share and TRES weights, usage
    counted every minute, and the gpu-policy job_submit.lua (GPU jobs naming no partition go to scavenger)."""
    pilot = yaml.safe_load(PILOT_VARS.read_text())
    users = pilot["accounting_users"]
    qos = ["normal", "low", "batch", "spot", "standby"]
    return {
        "cluster_scheduling": {
            "priority": {"weights": {"fairshare": 100000}, "tres_weights": {"CPU": "1.0", "GRES/gpu": "16.0"}},
            "preempt": {"type": "qos", "mode": ["SUSPEND", "GANG"], "exempt_time": "00:00:20"},
            # the main scheduler every 10 s (60 by default): it preempts once the exempt time is over
            "scheduler_parameters": ["sched_interval=10"],
        },
        "cluster_qos": {
            **pilot["cluster_qos"],
            "high": {"priority": 1000, "preempt": ["low", "batch", "spot", "standby"]},
            "batch": {"preempt_mode": "REQUEUE"},
            "spot": {"preempt_mode": "CANCEL"},
            "standby": {"preempt_mode": "SUSPEND"},
        },
        # (a partition's PreemptMode is for partition_prio)
        "cluster_partitions": [
            {k: v for k, v in partition.items() if k != "preempt_mode"} for partition in pilot["cluster_partitions"]
        ],
        "cluster_job_submit": {"script": "gpu-policy", "gpu_partition": "scavenger", "max_time": "00:30:00"},
        "cluster_slurm_config": {**pilot["cluster_slurm_config"], "PriorityCalcPeriod": 1},
        "accounting_accounts": {
            **pilot["accounting_accounts"],
            "teama": {"description": "fair share drill", "fairshare": 1},
            "teamb": {"description": "fair share drill", "fairshare": 4},
        },
        "accounting_users": {
            **users,
            "alice": {**users["alice"], "accounts": ["ml", "teama"], "qos": qos},
            "bob": {**users["bob"], "accounts": ["vision", "teamb"]},
        },
    }


def policy_run(extra: dict[str, Any] | None = None) -> subprocess.CompletedProcess[str]:
    """The controller's part of the deploy playbook (Slurm and the associations), with ``extra`` over the inventory."""
    args = ["--tags", "slurm,associations", "--limit", "pilot-ctl01"]
    return molecule("converge", "-s", "pilot", "--", *args, *(["-e", json.dumps(extra)] if extra else []))


def job_field(ctl: str, job: str, field: str) -> str:
    found = re.search(rf"\b{field}=(\S*)", sh(ctl, f"scontrol show job {job} --oneliner", check=False))
    return found.group(1) if found else ""


def test_scheduling_policies_hold_as_designed(lab: Lab) -> None:
    """docs/scheduling.md's policies, deployed through the inventory and watched at work (policy_drill_vars), then
    the pilot's own settings back. job_submit.lua: a GPU-less job in a GPU partition is refused with the sample's
    message, a GPU job naming no partition lands in scavenger, a time limit over 30 minutes is lowered. Fair share:
    after equal usage, teamb's 4 shares rank it above teama in sshare and sprio, and once a root job that held both
    nodes ends, teamb's queued jobs start before teama's although teama's were submitted first. Preemption by QOS
    (SUSPEND,GANG, PreemptExemptTime 20 s): a high job takes both nodes from batch, spot and standby jobs only once
    they ran 20 s; batch is requeued, spot cancelled (PREEMPTED), standby suspended and resumed after the high job.
    On Debian 13 only, for CI time."""
    if _suite["name"] != "trixie":
        pytest.skip("the scheduling policies behave alike on the releases in scope: watched once, on Debian 13")
    ctl = "pilot-ctl01"
    made = policy_run(policy_drill_vars())
    assert made.returncode == 0, failures(made.stdout)
    config = sh(ctl, "scontrol show config")
    for line in (
        r"PreemptType\s+= preempt/qos",
        r"PreemptMode\s+= GANG,SUSPEND",
        r"JobSubmitPlugins\s+= lua",
        r"PriorityWeightTRES\s+= CPU=1.0,GRES/gpu=16.0",
        r"PreemptExemptTime\s+= 00:00:20",
    ):
        assert re.search(line, config), (line, config)
    jobs: list[str] = []

    def submit(user: str, options: str, command: str = "sleep 300") -> str:
        out = sh(
            ctl, f"cd /tmp && runuser -u {user} -- sbatch --parsable --output=/dev/null {options} --wrap='{command}'"
        )
        job = out.splitlines()[-1]
        assert job.isdigit(), out
        jobs.append(job)
        return job

    def state(job: str) -> str:
        return sh(ctl, f"squeue --noheader --format=%T --job {job}", check=False)

    def sacct_state(job: str) -> str:
        return (sh(ctl, f"sacct --noheader --parsable2 --allocations --format=State --jobs {job}").split() or [""])[0]

    try:
        # job_submit.lua (gpu-policy)
        refused = sh(ctl, "cd /tmp && runuser -u alice -- sbatch --wrap=true 2>&1; echo rc=$?", check=False)
        assert "gpu-policy: partition gpu is for GPU jobs" in refused and not refused.endswith("rc=0"), refused
        placed = submit("alice", "--gpus=1 --time=60 --hold")
        assert job_field(ctl, placed, "Partition") == "scavenger"
        assert job_field(ctl, placed, "TimeLimit") == "00:30:00"
        sh(ctl, f"scancel {placed}")

        # Fair share: equal usage on both accounts, then a saturated queue
        whole = "--partition=gpu --gres=gpu:h100:4 --mem=500 --time=5"
        usage = [submit("alice", f"-A teama {whole}", "sleep 10"), submit("bob", f"-A teamb {whole}", "sleep 10")]
        wait_for("both usage jobs to end", lambda: not any(state(job) for job in usage), timeout=120)

        # (Fair Tree: sshare's FairShare is the users' factor; the accounts' rows show their LevelFS)
        seen = {"rows": ""}

        def ranked() -> dict[str, float] | None:
            seen["rows"] = rows = sh(
                ctl,
                "sshare --noheader --parsable2 --accounts=teama,teamb --users=alice,bob "
                "--format=Account,User,RawUsage,FairShare",
            )
            found: dict[str, tuple[int, float]] = {}
            for row in rows.splitlines():
                account, user, raw, fairshare = row.split("|")
                if (account.strip(), user) in (("teama", "alice"), ("teamb", "bob")):
                    found[user] = (int(raw or 0), float(fairshare or 0))
            if len(found) < 2 or not all(raw > 0 for raw, _ in found.values()):
                return None
            return {u: f for u, (_, f) in found.items()} if found["bob"][1] > found["alice"][1] else None

        try:
            shares = wait_for("sshare to rank bob (teamb) above alice (teama) after equal usage", ranked, timeout=150)
        except AssertionError as error:
            raise AssertionError(f"{error}\n{seen['rows']}") from None
        holder = submit("root", "--partition=gpu --nodes=2 --exclusive --time=5")
        wait_for("root's job holding both nodes", lambda: state(holder) == "RUNNING", timeout=60)
        queued = [
            submit(user, f"-A {account} {whole}", "sleep 15")
            for user, account in (("alice", "teama"), ("bob", "teamb"), ("alice", "teama"), ("bob", "teamb"))
        ]
        # the queue as slurmctld ranks it (squeue's %Q), and sprio's factors of every pending job for the record
        listed = sh(ctl, f"squeue --noheader --format='%i %Q %T %r' --jobs={','.join(queued)}")
        print(f"\nqueued (job, priority, state, reason):\n{listed}\n{sh(ctl, 'sprio --long', check=False)}")
        priority = {row.split()[0]: int(row.split()[1]) for row in listed.splitlines()}
        assert set(priority) == set(queued), listed
        assert min(priority[j] for j in queued[1::2]) > max(priority[j] for j in queued[::2]), (listed, shares)
        sh(ctl, f"scancel {holder}")
        wait_for("teamb's two jobs to start", lambda: all(state(j) == "RUNNING" for j in queued[1::2]), timeout=90)
        assert [state(j) for j in queued[::2]] == ["PENDING", "PENDING"], "a teama job started before teamb's"
        wait_for("the queue to drain", lambda: not any(state(j) for j in queued), timeout=120)

        # Preemption by QOS: requeue, cancel, suspend; none before the exempt time
        cores = "--partition=gpu --gres=gpu:h100:1 --mem=400 --time=10"
        batch = submit("alice", f"--qos=batch -w pilot-gpu01 -n1 {cores}")
        spot = submit("alice", f"--qos=spot -w pilot-gpu01 -n1 {cores}")
        standby = submit(
            "alice", f"--qos=standby -w pilot-gpu02 -n2 {cores.replace('=gpu ', '=scavenger ')}", "sleep 45"
        )
        wait_for(
            "the three preemptible jobs running",
            lambda: all(state(j) == "RUNNING" for j in (batch, spot, standby)),
            timeout=60,
        )
        started = time.monotonic()
        high = submit("root", "--qos=high --partition=gpu --nodes=2 --ntasks-per-node=2 --mem=400 --time=5", "sleep 20")
        time.sleep(5)
        if time.monotonic() - started < 15:
            assert state(high) == "PENDING" and state(spot) == "RUNNING", (
                "a job younger than PreemptExemptTime was preempted"
            )
        wait_for("the high job running on both nodes", lambda: state(high) == "RUNNING", timeout=120)
        assert state(standby) == "SUSPENDED"
        # (the accounting record follows the job by a moment)
        wait_for("spot's record to say PREEMPTED", lambda: sacct_state(spot) == "PREEMPTED", timeout=60)
        assert state(spot) in ("", "COMPLETING")
        assert int(job_field(ctl, batch, "Restarts") or 0) >= 1 and state(batch) in (
            "PENDING",
            "REQUEUED",
            "COMPLETING",
        )
        ran = sh(ctl, f"sacct --noheader --parsable2 --allocations --format=ElapsedRaw --jobs {spot}")
        assert int(ran) >= 20, f"spot ran {ran} s before preemption; PreemptExemptTime is 20 s"
        # resumed once the high job is done, it runs to its end (which may come before this line: its record says it)
        wait_for(
            "the suspended job to resume and complete after the high job",
            lambda: sacct_state(standby) == "COMPLETED",
            timeout=120,
        )
        wait_for("the high job's record to say COMPLETED", lambda: sacct_state(high) == "COMPLETED", timeout=60)
    finally:
        # the pilot's own settings back, once the drill's jobs are gone (sacctmgr keeps an association with jobs)
        if jobs:
            sh(ctl, f"scancel {' '.join(jobs)}", check=False)
            wait_for(
                "the drill's jobs to leave the queue",
                lambda: sh(ctl, f"squeue --noheader --jobs={','.join(jobs)}", check=False) == "",
                timeout=120,
            )
        back = policy_run()
        if back.returncode != 0:
            print(f"restoring the pilot's settings failed:\n{failures(back.stdout)}")
    assert back.returncode == 0, failures(back.stdout)
    config = sh(ctl, "scontrol show config")
    assert re.search(r"PreemptType\s+= preempt/partition_prio", config) and not re.search(
        r"JobSubmitPlugins\s+= lua", config
    )
    assert sh(ctl, "test -e /etc/slurm/job_submit.lua; echo $?") == "1"


MODULES_JOB = """#!/bin/bash
module load cuda nccl python
module --terse list 2>&1
echo "cuda=$CUDA_VERSION nccl=$NCCL_VERSION"
python3 -c 'import torch; print("torch", torch.__version__)'
"""


def test_a_job_script_that_loads_modules_runs_unchanged(lab: Lab) -> None:
    """user_env_modules: a script as sites hand them out, beginning `module load cuda nccl python`, submitted by alice
    from a login shell (on pilot-gpu01: the lab has no login node, and its compute nodes have the users'
    environment), runs with the node's CUDA runtime, NCCL and Python with PyTorch as modules. On Debian 13 only, for
    CI time (NCCL is a 115 MB download per node)."""
    if _suite["name"] != "trixie":
        pytest.skip("the modules test runs on Debian 13, whose pilot installs NCCL")
    node = "pilot-gpu01"
    # the versions the node's packages have (Debian's: 1:12.4.127~12.4.1-2 -> 12.4)
    query = "dpkg-query --show --showformat='${Version}' %s | sed -E 's/^[0-9]+://; s/[-~+].*//'"
    cuda, nccl, python = (sh(node, query % package) for package in ("libcudart12", "libnccl2", "python3"))
    cuda, python = (".".join(v.split(".")[:2]) for v in (cuda, python))
    modules = [f"cuda/{cuda}", f"nccl/{nccl}", f"python/{python}"]
    assert sh(node, "cd /etc/gpucluster/modulefiles && ls */*.lua").split() == [f"{m}.lua" for m in modules]
    sh(node, f"cat > /home/alice/modules.sbatch <<'EOF'\n{MODULES_JOB}EOF\nchown alice: /home/alice/modules.sbatch")
    job = sh(node, "runuser -l alice -c 'sbatch --parsable --wait --time=2 --output=modules-%j.out modules.sbatch'")
    out = sh(node, f"cat /home/alice/modules-{job.splitlines()[-1]}.out")
    assert out.splitlines()[:3] == modules, out
    assert f"cuda={cuda} nccl={nccl}" in out and re.search(r"^torch \d", out, re.M), out


# The query commands the guide names inline: each runs as written (a placeholder filled with a job of the user's).
GUIDE_QUERIES = ("sinfo", "squeue", "sacct", "sacctmgr", "sshare", "sprio", "sreport", "jobeff")


def guide_snippets(text: str) -> tuple[list[str], list[str]]:
    """The guide's ```sh blocks, and its inline query commands (`sinfo -s`...; bare command names are mentions)."""
    blocks = re.findall(r"^```sh\n(.*?)^```\n", text, re.M | re.S)
    prose = re.sub(r"^```sh\n.*?^```\n", "", text, flags=re.M | re.S)
    spans = [span for span in re.findall(r"`([^`\n]+)`", prose) if span.split()[0] in GUIDE_QUERIES]
    return blocks, sorted(set(spans))


def test_every_command_of_the_users_guide_runs_as_it_says(lab: Lab) -> None:
    """The users' guide as the lab installed it: each ```sh block runs as alice, whole, with `bash -euo pipefail`
    from her login shell
    (a job for later held, released and cancelled; jobs on a named node, elsewhere, with a feature; an
    allocation without a shell, steps with --overlap, sstat, one step cancelled); each inline query command runs
    with its placeholders filled (<job>: a finished job of hers, a pending one for sprio; <partition>: the
    default). Every one exits 0 and the blocks leave no job behind."""
    if _suite["name"] != "trixie":
        pytest.skip("the guide is checked on Debian 13, whose pilot has every module its block loads (NCCL included)")
    # alice logs in where the users' environment is (the lab has no login node: a compute node has it - the guide,
    # the examples, Lmod), each block a script run by `bash -euo pipefail` from her login shell
    ctl, login = "pilot-ctl01", "pilot-gpu01"
    guide = sh(login, "cat /usr/local/share/pilot/user-guide.md")
    blocks, spans = guide_snippets(guide)
    assert len(blocks) >= 3 and len(spans) >= 8, (blocks, spans)
    work = "/home/alice/guide-check"
    sh(login, f"runuser -u alice -- mkdir -p {work}")
    if any("rootfs.tar" in block for block in blocks):
        # the one thing the guide asks the user to bring: an image's root filesystem as a tarball
        busybox_rootfs_tar(work, "gpucluster-lab-guide")

    def as_alice(script: str) -> str:
        sh(login, f"cat > {work}/snippet.sh <<'GUIDE_EOF'\n{script}\nGUIDE_EOF\nchown alice: {work}/snippet.sh")
        return sh(
            login,
            f"runuser -l alice -c 'cd {work} && bash -euo pipefail snippet.sh' 2>&1; echo rc=$?",
            timeout=300,
        )

    for block in blocks:
        ran = as_alice(block)
        assert ran.endswith("rc=0"), f"{block}\n---\n{ran}"
    # a job whose work ended may still be completing (CG: its epilog and the step's cleanup on the node); one pending,
    # running or suspended was left behind by a block
    live = sh(ctl, "squeue --noheader --user=alice --states=PENDING,RUNNING,SUSPENDED,CONFIGURING,REQUEUED")
    assert live == "", f"a block of the guide left a job behind:\n{live}"
    wait_for(
        "alice's completing jobs to leave the queue (epilog done)",
        lambda: sh(ctl, "squeue --noheader --user=alice") == "",
        timeout=120,
    )
    done = as_alice("sbatch --parsable --wait --time=5 --output=/dev/null --wrap=hostname").splitlines()[0]
    held = as_alice("sbatch --parsable --hold --time=5 --output=/dev/null --wrap=hostname").splitlines()[0]
    try:
        for span in spans:
            command = span.replace("<job>", held if span.startswith("sprio") else done).replace("<partition>", "gpu")
            assert "<" not in command, f"the test cannot fill {command!r}: give it a value"
            ran = as_alice(command)
            assert ran.endswith("rc=0"), f"{command}\n---\n{ran}"
    finally:
        sh(ctl, f"scancel {held}", check=False)


def failed_conversion_stops_the_run_and_keeps_the_cluster(running: str) -> None:
    """The risky step fails: a line slurmdbd does not know in slurmdbd.conf, so the foreground slurmdbd of the
    new release exits before it listens. The run stops there, naming the host and quoting slurmdbd; slurmdbd
    stays masked (the next run resumes the conversion), nothing else is upgraded and the job runs on."""
    conf, kept = "/etc/slurm/slurmdbd.conf", "/root/slurmdbd.conf.drill"
    docker_exec("pilot-dbd01", "bash", "-c", f"cp -p {conf} {kept}; echo BogusDrillOption=1 >>{conf}")
    try:
        start = time.monotonic()
        failed = upgrade_slurm("26.05")
        print(f"\npilot lab: the upgrade whose conversion fails stopped after {time.monotonic() - start:.0f} s")
    finally:
        docker_exec("pilot-dbd01", "cp", "-p", kept, conf)
    assert failed.returncode != 0
    message = " ".join(failed.stdout.split())
    # (an exit status, not "rc ?": the run saw slurmdbd's exit, not a check made before slurmdbd had started)
    exited = re.search(r"pilot-dbd01: slurmdbd -D exited \(rc -?\d+\) before it listened", message)
    assert exited, failures(failed.stdout)
    assert "BogusDrillOption" in message, failures(failed.stdout)
    unit = ["docker", "exec", "pilot-dbd01", "systemctl", "is-enabled", "slurmdbd"]
    assert subprocess.run(unit, capture_output=True, text=True, check=False).stdout.strip() == "masked"
    for host in ("pilot-ctl01", "pilot-gpu01", "pilot-gpu02"):
        assert runs_release(host, "24.11"), slurm_packages(host)
    ctl = "pilot-ctl01"
    assert docker_exec(ctl, "squeue", "--noheader", "--format=%T", "--job", running).strip() == "RUNNING"
    assert "is UP" in docker_exec(ctl, "scontrol", "ping")


def test_rolling_upgrade_keeps_running_jobs_and_accounting(lab: Lab) -> None:
    """Debian 13's 24.11 to Debian unstable's 26.05 with a job running and one queued (last: the lab stays on
    26.05): a first run whose conversion fails, then one that resumes it."""
    if _suite["name"] != "trixie":
        pytest.skip("the rolling upgrade drill goes from Debian 13's 24.11 to Debian unstable's 26.05")
    ctl = "pilot-ctl01"
    history = "sacct --noheader --parsable2 --allocations --starttime=2020-01-01 --format=JobID,State"
    before = dict(row.split("|", 1) for row in docker_exec(ctl, "bash", "-c", history).splitlines())
    assert len(before) >= 7, before
    job_rows = 'mariadb -N -B slurm_acct_db -e "SELECT COUNT(*) FROM pilot_job_table"'
    rows_before = int(docker_exec("pilot-dbd01", "bash", "-c", job_rows))
    running = docker_exec(
        ctl,
        "sbatch",
        "--parsable",
        "--nodes=1",
        "--gres=gpu:h100:4",
        "--time=10",
        "--job-name=across-upgrade",
        "--output=/home/upgrade-drill-%j.out",
        # Runs until the test lets it end, after the upgrade: it spans every restart of the run.
        "--wrap=while [ ! -e /home/upgrade-drill-go ]; do sleep 2; done",
    ).strip()
    queued = docker_exec(
        ctl,
        "sbatch",
        "--parsable",
        "--nodes=2",
        "--gres=gpu:h100:4",
        "--time=10",
        "--job-name=queued-upgrade",
        "--output=/home/upgrade-drill-%j.out",
        "--wrap=srun hostname",
    ).strip()
    failed_conversion_stops_the_run_and_keeps_the_cluster(running)
    start = time.monotonic()
    result = upgrade_slurm("26.05")
    seconds = time.monotonic() - start
    assert result.returncode == 0, failures(result.stdout) + result.stdout[-4000:]
    print(f"\npilot lab: rolling upgrade 24.11 -> 26.05 (resuming the conversion) took {seconds:.0f} s")
    for host in HOSTS:
        assert runs_release(host, "26.05"), slurm_packages(host)
    nodes = docker_exec(ctl, "scontrol", "show", "nodes")
    assert nodes.count("Version=26.05.") == 2, nodes
    # The job ran through slurmdbd's, slurmctld's and its own slurmd's restarts; the 2-node job waits behind it.
    squeue = docker_exec(ctl, "squeue", "--noheader", "--format=%i %T", "--jobs", f"{running},{queued}")
    assert dict(line.split() for line in squeue.splitlines()) == {running: "RUNNING", queued: "PENDING"}, squeue
    docker_exec(ctl, "touch", "/home/upgrade-drill-go")
    # The job that ran across the upgrade and the one queued behind it complete; the history is whole: every
    # job id of before, every completed job still completed (26.05's sacct may word other states its own
    # way), and the database's job table holds exactly the two new rows more.
    deadline = time.monotonic() + 300
    states: dict[str, str] = {}
    while time.monotonic() < deadline:
        states = dict(row.split("|", 1) for row in docker_exec(ctl, "bash", "-c", history).splitlines())
        if states.get(running) == "COMPLETED" and states.get(queued) == "COMPLETED":
            break
        time.sleep(5)
    outputs = subprocess.run(
        ["docker", "exec", ctl, "bash", "-c", "tail -n 20 /home/upgrade-drill-*.out; scontrol show jobs; sinfo -N"],
        capture_output=True,
        check=False,
        text=True,
    )
    if not (states.get(running) == "COMPLETED" and states.get(queued) == "COMPLETED"):
        print(outputs.stdout)  # pytest shortens an assertion's message: the jobs' output in full
    assert states.get(running) == "COMPLETED" and states.get(queued) == "COMPLETED", states
    # The batches drained for the upgrade are resumed: no node is left draining or drained.
    node_states = docker_exec(ctl, "sinfo", "--noheader", "--Node", "--format=%N %T")
    assert "drain" not in node_states, node_states
    assert set(before) <= set(states), sorted(set(before) - set(states))
    completed = {job for job, state in before.items() if state == "COMPLETED"}
    assert len(completed) >= 7 and all(states[job] == "COMPLETED" for job in completed), (before, states)
    assert int(docker_exec("pilot-dbd01", "bash", "-c", job_rows)) == rows_before + 2
    # The dump of before the first attempt is kept; the resuming run wrote its own.
    for dump in ("slurm-24.11-to-26.05.sql.gz", "slurm-24.11-to-26.05-resumed.sql.gz"):
        backup = docker_exec("pilot-dbd01", "stat", "-c", "%a %n", f"/var/backups/gpucluster/{dump}")
        assert backup.startswith("600 "), backup
    archive = "/var/backups/gpucluster/slurm-24.11-to-26.05-statesave.tar.gz"
    assert docker_exec(ctl, "stat", "-c", "%a", archive).strip() == "600"
    again = upgrade_slurm("26.05")
    assert again.returncode == 0, failures(again.stdout)
    counters = recap(again.stdout)
    assert {host: counters[host]["changed"] for host in HOSTS} == dict.fromkeys(HOSTS, 0), changed_tasks(again.stdout)
