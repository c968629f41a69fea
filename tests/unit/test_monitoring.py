"""Monitoring: the generated Prometheus and Alertmanager configurations, the alert rules and the dashboards,
each checked by the tool that will read it (promtool, amtool) and by what it must contain."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible_collections.gpucluster.cluster.plugins.filter.monitoring import monitoring_prometheus_config
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.monitoring import (
    alertmanager_config,
    alertmanager_errors,
    dcgm_exporter_errors,
    prometheus_config,
    settings_errors,
    web_user_errors,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.plan import build_plan

from scripts import dashboards
from tests.helpers.tls import self_signed
from tests.helpers.tools import ROOT, load_tool

from .factory import valid_groups, valid_spec

ROLE = ROOT / "roles" / "monitoring"
DATA = Path(__file__).parent / "data"
# Where Grafana substitutes its variables, the checks put a value of the same kind.
GRAFANA_VARIABLES = {"$__rate_interval": "5m", "$node": ".*", "${datasource}": ""}


def tool(name: str) -> str:
    path = shutil.which(name, path=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    assert path, f"{name} not on PATH: scripts/bootstrap.sh installs it into .venv/bin"
    return path


def run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, cwd=cwd)


def _config(dcgm: bool = True) -> dict[str, Any]:
    cluster = build_cluster(valid_spec(), valid_groups())
    return prometheus_config(cluster, ["mon01"], ports={"slurm": 9341}, dcgm=dcgm)


def test_scrape_jobs_follow_the_inventory() -> None:
    config = _config()
    jobs = {job["job_name"]: job["static_configs"] for job in config["scrape_configs"]}
    assert sorted(jobs) == ["alertmanager", "dcgm", "mysqld", "node", "prometheus", "slurm"]
    node_groups = {json.dumps(group.get("labels", {})): group["targets"] for group in jobs["node"]}
    assert node_groups["{}"] == ["ctl01:9100", "dbd01:9100", "login01:9100", "nfs01:9100", "mon01:9100"]
    assert node_groups['{"node_type": "h100"}'] == [f"gpu0{i}:9100" for i in range(1, 5)]
    assert node_groups['{"node_type": "cpu"}'] == ["cpu01:9100", "cpu02:9100"]
    assert jobs["slurm"] == [{"targets": ["ctl01:9341"]}]
    assert jobs["mysqld"] == [{"targets": ["dbd01:9104"]}]
    assert jobs["dcgm"] == [
        {"targets": [f"gpu0{i}:9400" for i in range(1, 5)], "labels": {"node_type": "h100", "gpu_type": "h100"}}
    ]
    assert config["global"]["external_labels"] == {"cluster": "lab"}
    assert config["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"] == ["mon01:9093"]
    assert "dcgm" not in [job["job_name"] for job in _config(dcgm=False)["scrape_configs"]]


def test_login_pool_haproxy_is_scraped_on_every_login_node() -> None:
    cluster = build_cluster(valid_spec(), valid_groups())
    config = prometheus_config(cluster, ["mon01"], haproxy=True)
    jobs = {job["job_name"]: job["static_configs"] for job in config["scrape_configs"]}
    assert jobs["haproxy"] == [{"targets": ["login01:8405"]}]
    assert "haproxy" not in [job["job_name"] for job in _config()["scrape_configs"]]


def test_prometheus_accepts_the_generated_config_and_the_rules(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    shutil.copy(ROLE / "files" / "rules" / "gpucluster.yml", tmp_path / "rules" / "gpucluster.yml")
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(_config()))
    result = run(tool("promtool"), "check", "config", str(tmp_path / "prometheus.yml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 14 rules found" in result.stdout + result.stderr
    # The instance label is the bare host name: node_exporter, DCGM and Slurm series of one node join on it.
    relabel = _config()["scrape_configs"][0]["relabel_configs"][0]
    host = re.fullmatch(relabel["regex"], "gpu01:9100")
    assert host is not None and host.group(1) == "gpu01"


def test_alert_rules_fire_when_they_should() -> None:
    result = run(tool("promtool"), "test", "rules", "rules_test.yml", cwd=DATA)
    assert result.returncode == 0, result.stdout + result.stderr
    rules = yaml.safe_load((ROLE / "files" / "rules" / "gpucluster.yml").read_text())
    alerts = {rule["alert"] for group in rules["groups"] for rule in group["rules"]}
    tested = set(re.findall(r"alertname: (\w+)", (DATA / "rules_test.yml").read_text()))
    assert alerts == tested, f"alerts without a test: {sorted(alerts - tested)}"


RECEIVERS = [
    {"name": "hpc-oncall", "webhook_configs": [{"url": "http://alerts.example.org/hook"}]},
    {"name": "hpc-mail", "email_configs": [{"to": "hpc@example.org"}]},
]


@pytest.mark.parametrize(
    ("route", "receivers", "message"),
    [
        ({"receiver": "hpc-oncall"}, [], "monitoring_alertmanager_receivers: give a list with at least one receiver"),
        (
            {"receiver": "hpc-oncall"},
            [{"webhook_configs": []}],
            "monitoring_alertmanager_receivers[0]: a receiver needs a name",
        ),
        ({"receiver": "x"}, [{"name": "x"}, {"name": "x"}], "x declared twice"),
        ({}, RECEIVERS, "the top route needs a receiver"),
        (
            {"receiver": "hpc-oncall", "routes": [{"matchers": ["severity=warning"], "receiver": "hpc-email"}]},
            RECEIVERS,
            "receiver hpc-email is not in monitoring_alertmanager_receivers (hpc-oncall, hpc-mail)",
        ),
        (
            {"receiver": "hpc-oncall"},
            [{"name": "hpc-oncall", "slack_configs": [{"api_url": "hooks.slack.com/services/T0"}]}],
            "monitoring_alertmanager_receivers[hpc-oncall].slack_configs[0].api_url: 'hooks.slack.com/services/T0' is "
            "not an http or https URL",
        ),
        (
            {"receiver": "ops"},
            [{"name": "ops", "email": "ops@example.org"}],
            "monitoring_alertmanager_receivers[ops].email: a receiver holds its name and lists of notifier configs "
            "(email_configs, webhook_configs, slack_configs, ...); Alertmanager refuses 'email' - did you mean "
            "email_configs: [{...}]?",
        ),
        (
            {"receiver": "ops"},
            [{"name": "ops", "email_configs": {"to": "ops@example.org"}}],
            "monitoring_alertmanager_receivers[ops].email_configs: give a list of configs (email_configs: [{...}])",
        ),
    ],
)
def test_bad_alertmanager_settings_are_named(route: Any, receivers: Any, message: str) -> None:
    errors = alertmanager_errors(route, receivers)
    assert any(message in error for error in errors), errors


def test_alertmanager_accepts_the_generated_config(tmp_path: Path) -> None:
    route = {"receiver": "hpc-oncall", "routes": [{"matchers": ["severity=warning"], "receiver": "hpc-mail"}]}
    assert alertmanager_errors(route, RECEIVERS) == []
    inhibit = [
        {"source_matchers": ["alertname=NodeDown"], "target_matchers": ["severity=warning"], "equal": ["instance"]}
    ]
    config = alertmanager_config(route, RECEIVERS, inhibit)
    config["global"] = {"smtp_smarthost": "mail.example.org:25", "smtp_from": "slurm@example.org"}
    (tmp_path / "alertmanager.yml").write_text(yaml.safe_dump(config))
    result = run(tool("amtool"), "check-config", str(tmp_path / "alertmanager.yml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 receivers" in result.stdout


def _dashboards() -> dict[str, dict[str, Any]]:
    files = sorted((ROLE / "files" / "dashboards").glob("*.json"))
    assert [f.name for f in files] == ["gpucluster-gpus.json", "gpucluster-overview.json", "gpucluster-scheduler.json"]
    return {f.name: json.loads(f.read_text()) for f in files}


def _exprs() -> list[str]:
    return [t["expr"] for board in _dashboards().values() for p in board["panels"] for t in p["targets"]]


def test_dashboards_are_what_the_generator_writes() -> None:
    assert dashboards.main(["--check"]) == 0, "run python3 scripts/dashboards.py"


def test_dashboards_are_valid_grafana_json() -> None:
    boards = _dashboards()
    assert len({b["uid"] for b in boards.values()}) == len(boards)
    for name, board in boards.items():
        assert board["schemaVersion"] >= 36 and board["title"], name
        assert board["templating"]["list"][0] == {
            "name": "datasource",
            "label": "Prometheus",
            "type": "datasource",
            "query": "prometheus",
            "current": {},
        }
        ids = [p["id"] for p in board["panels"]]
        assert len(ids) == len(set(ids)), f"{name}: duplicate panel ids"
        cells: set[tuple[int, int]] = set()
        for panel in board["panels"]:
            grid = panel["gridPos"]
            assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24, f"{name}/{panel['title']} leaves the 24 columns"
            area = {(grid["x"] + dx, grid["y"] + dy) for dx in range(grid["w"]) for dy in range(grid["h"])}
            assert not cells & area, f"{name}/{panel['title']} overlaps another panel"
            cells |= area
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
            assert panel["targets"] and all(t["expr"] and t["refId"] for t in panel["targets"])


def test_dashboard_queries_parse(tmp_path: Path) -> None:
    exprs = []
    for query in _exprs():
        for variable, value in GRAFANA_VARIABLES.items():
            query = query.replace(variable, value)  # noqa: PLW2901
        exprs.append(query)
    rules = {
        "groups": [
            {"name": "dashboards", "rules": [{"record": f"dashboard:q{i}", "expr": e} for i, e in enumerate(exprs)]}
        ]
    }
    (tmp_path / "queries.yml").write_text(yaml.safe_dump(rules))
    result = run(tool("promtool"), "check", "rules", str(tmp_path / "queries.yml"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_dashboards_use_only_metrics_the_slurm_exporter_serves() -> None:
    exporter = load_tool("monitoring", "gpucluster-slurm-exporter")
    from tests.unit.test_slurm_exporter import FakeSlurm

    served = set(re.findall(r"^(slurm_\w+)", exporter.collect(FakeSlurm()), re.MULTILINE))
    used = {m for expr in _exprs() for m in re.findall(r"\b(slurm_\w+)", expr)}
    rules = (ROLE / "files" / "rules" / "gpucluster.yml").read_text()
    used |= set(re.findall(r"\b(slurm_\w+)", rules))
    assert used <= served, f"not served by the exporter: {sorted(used - served)}"


def test_slurmctlds_own_endpoints_are_scraped_where_the_release_has_them() -> None:
    """26.05: one job per endpoint at slurmctld's port, series renamed slurmctld_*; 24.11: none; a pair at its VIP."""
    spec = valid_spec()
    spec["slurm_release"] = "26.05"
    jobs = {
        job["job_name"]: job
        for job in prometheus_config(build_cluster(spec, valid_groups()), ["mon01"])["scrape_configs"]
    }
    ctld = [name for name in jobs if name.startswith("slurmctld_")]
    assert ctld == ["slurmctld_jobs", "slurmctld_nodes", "slurmctld_partitions", "slurmctld_scheduler"]
    assert jobs["slurmctld_nodes"]["metrics_path"] == "/metrics/nodes"
    assert jobs["slurmctld_nodes"]["static_configs"] == [{"targets": ["ctl01:6817"]}]
    assert jobs["slurmctld_nodes"]["metric_relabel_configs"][0]["replacement"] == "slurmctld_$1"
    assert not [name for name in (j["job_name"] for j in _config()["scrape_configs"]) if name.startswith("slurmctld")]
    groups = valid_groups()
    groups["controllers"].append("ctl02")
    groups["all"].append("ctl02")
    pair = prometheus_config(build_cluster(spec, groups), ["mon01"])["scrape_configs"]
    assert [job["static_configs"] for job in pair if job["job_name"] == "slurmctld_jobs"] == [
        [{"targets": ["ctl01:6817", "ctl02:6817"]}]
    ]
    spec["controller_vip"] = "10.0.0.10"
    spec["slurm_config"] = {"SlurmctldPort": "6900-6901"}
    paired = prometheus_config(build_cluster(spec, groups), ["mon01"])["scrape_configs"]
    assert [job["static_configs"] for job in paired if job["job_name"] == "slurmctld_jobs"] == [
        [{"targets": ["10.0.0.10:6900"]}]
    ]
    spec["slurm_metrics"] = False
    off = prometheus_config(build_cluster(spec, groups), ["mon01"])["scrape_configs"]
    assert not [job for job in off if job["job_name"].startswith("slurmctld")]


def test_secured_exporters_are_scraped_over_tls_with_the_monitoring_user(tmp_path: Path) -> None:
    """With a web setting the node, Slurm and MariaDB exporters, Prometheus and Alertmanager are reached over HTTPS
    (verified against the cluster CA) with basic auth; DCGM's exporter, which has no web configuration, as before.
    promtool accepts it (it checks that the CA and password files exist)."""
    ca, password = tmp_path / "ca.crt", tmp_path / "web-password"
    ca.write_text("")
    password.write_text("x" * 32)
    web = {"ca_file": str(ca), "username": "gpucluster", "password_file": str(password)}
    cluster = build_cluster(valid_spec(), valid_groups())
    config = prometheus_config(cluster, ["mon01"], ports={"slurm": 9341}, dcgm=True, web=web)
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    for name in ("node", "slurm", "mysqld", "prometheus", "alertmanager"):
        assert jobs[name]["scheme"] == "https" and jobs[name]["tls_config"] == {"ca_file": str(ca)}, name
        assert jobs[name]["basic_auth"] == {"username": "gpucluster", "password_file": str(password)}, name
    assert "scheme" not in jobs["dcgm"] and "basic_auth" not in jobs["dcgm"]
    alertmanager = config["alerting"]["alertmanagers"][0]
    assert alertmanager["scheme"] == "https" and alertmanager["basic_auth"]["username"] == "gpucluster"
    (tmp_path / "rules").mkdir()
    (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
    result = run(tool("promtool"), "check", "config", str(tmp_path / "prometheus.yml"))
    assert result.returncode == 0, result.stdout + result.stderr
    # without a CA (monitoring_tls false): plain HTTP, still with the user
    plain = prometheus_config(cluster, ["mon01"], web={**web, "ca_file": ""})
    node = next(job for job in plain["scrape_configs"] if job["job_name"] == "node")
    assert node["scheme"] == "http" and "tls_config" not in node and node["basic_auth"]["username"] == "gpucluster"


def test_the_web_config_is_what_prometheus_reads_and_stays_the_same(tmp_path: Path) -> None:
    """monitoring_web_config: promtool accepts it (TLS files, bcrypt hash); the same password gives the same file
    (a re-run changes nothing), another password another hash, and the hash checks the password."""
    import bcrypt
    from ansible_collections.gpucluster.cluster.plugins.filter.monitoring import monitoring_web_config

    cert, key = tmp_path / "monitoring.crt", tmp_path / "monitoring.key"
    self_signed(cert, key, "mon01")
    config = monitoring_web_config("a-long-password-1", "gpucluster", str(cert), str(key))
    assert config == monitoring_web_config("a-long-password-1", "gpucluster", str(cert), str(key))
    hashed = config["basic_auth_users"]["gpucluster"]
    assert hashed != monitoring_web_config("a-long-password-2", "gpucluster")["basic_auth_users"]["gpucluster"]
    assert bcrypt.checkpw(b"a-long-password-1", hashed.encode())
    assert not bcrypt.checkpw(b"a-long-password-2", hashed.encode())
    (tmp_path / "web.yml").write_text(yaml.safe_dump(config))
    result = run(tool("promtool"), "check", "web-config", str(tmp_path / "web.yml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "tls_server_config" not in monitoring_web_config("a-long-password-1", "gpucluster")


def test_haproxys_exporter_is_scraped_over_tls_with_the_monitoring_user() -> None:
    """The login pool's HAProxy serves its exporter with TLS and the monitoring user (login_pool role): Prometheus
    scrapes it as the other exporters, and over plain HTTP (still with the user) without a CA."""
    cluster = build_cluster(valid_spec(), valid_groups())
    web = {"ca_file": "/etc/prometheus/tls/ca.crt", "username": "gpucluster", "password_file": "/etc/prometheus/pw"}
    jobs = {
        job["job_name"]: job for job in prometheus_config(cluster, ["mon01"], haproxy=True, web=web)["scrape_configs"]
    }
    assert jobs["haproxy"]["scheme"] == "https" and jobs["haproxy"]["tls_config"] == {"ca_file": web["ca_file"]}
    assert jobs["haproxy"]["basic_auth"] == {"username": "gpucluster", "password_file": "/etc/prometheus/pw"}
    plain = prometheus_config(cluster, ["mon01"], haproxy=True, web={**web, "ca_file": ""})
    haproxy = next(job for job in plain["scrape_configs"] if job["job_name"] == "haproxy")
    assert haproxy["scheme"] == "http" and haproxy["basic_auth"]["username"] == "gpucluster"


def test_haproxys_password_hash_is_cheap_stable_and_checks_the_password() -> None:
    """monitoring_password_hash at the cost HAProxy's userlist gets (HAProxy checks it at every scrape, in the
    process that also proxies the login pool's SSH): the cost asked for, the same hash on a re-run, another for
    another password or user; a cost bcrypt does not have is refused by name."""
    import bcrypt
    from ansible.errors import AnsibleFilterError
    from ansible_collections.gpucluster.cluster.plugins.filter.monitoring import monitoring_password_hash

    hashed = monitoring_password_hash("a-long-password-1", "gpucluster", 5)
    assert hashed.startswith("$2b$05$") and hashed == monitoring_password_hash("a-long-password-1", "gpucluster", 5)
    assert bcrypt.checkpw(b"a-long-password-1", hashed.encode())
    assert not bcrypt.checkpw(b"a-long-password-2", hashed.encode())
    assert hashed != monitoring_password_hash("a-long-password-1", "prometheus", 5)
    assert monitoring_password_hash("a-long-password-1", "gpucluster").startswith("$2b$10$")
    with pytest.raises(AnsibleFilterError, match="bcrypt's cost is 4 to 31"):
        monitoring_password_hash("a-long-password-1", "gpucluster", 3)


def test_dcgm_is_scraped_over_tls_only_where_it_reads_the_web_configuration() -> None:
    """monitoring_dcgm_exporter_web_config: dcgm-exporter 3.3.5+ serves TLS and basic auth from the web
    configuration, and Prometheus then scrapes it as the other exporters; without it, as it serves."""
    cluster = build_cluster(valid_spec(), valid_groups())
    web = {"ca_file": "/etc/prometheus/tls/ca.crt", "username": "gpucluster", "password_file": "/etc/prometheus/pw"}
    for dcgm_web, scheme in ((True, "https"), (False, None)):
        config = prometheus_config(cluster, ["mon01"], dcgm=True, web=web, dcgm_web=dcgm_web)
        jobs = {job["job_name"]: job for job in config["scrape_configs"]}
        assert jobs["dcgm"].get("scheme") == scheme and ("basic_auth" in jobs["dcgm"]) == dcgm_web
        assert jobs["node"]["scheme"] == "https"


def test_the_filter_reads_prometheus_targets_from_the_runs_plan() -> None:
    """monitoring_prometheus_config on the plan (the monitoring role's way) says what prometheus_config says on the
    model: the same jobs and targets."""
    plan = build_plan(valid_spec(), valid_groups())
    settings = {"monitoring_hosts": ["mon01"], "ports": {"slurm": 9341}, "dcgm": True, "haproxy": True}
    from_plan = monitoring_prometheus_config(plan, settings)
    cluster = build_cluster(valid_spec(), valid_groups())
    assert from_plan == prometheus_config(cluster, ["mon01"], ports={"slurm": 9341}, dcgm=True, haproxy=True)
    node = next(job for job in from_plan["scrape_configs"] if job["job_name"] == "node")
    h100 = {"targets": [f"gpu0{n}:9100" for n in range(1, 5)], "labels": {"node_type": "h100"}}
    assert h100 in node["static_configs"]


def test_durations_and_ports_prometheus_and_the_exporters_would_not_start_with_are_named() -> None:
    durations = {"monitoring_prometheus_retention": "30d", "monitoring_scrape_interval": "1m30s"}
    ports = {"monitoring_node_exporter_port": 9100, "monitoring_prometheus_port": "9090"}
    assert settings_errors(durations, ports) == []
    assert settings_errors({"monitoring_prometheus_retention": "2 weeks", "monitoring_scrape_interval": "15"}, {}) == [
        "monitoring_prometheus_retention: '2 weeks' is not a Prometheus duration; write it like 30s, 5m, 1h30m, 15d "
        "or 2w",
        "monitoring_scrape_interval: '15' is not a Prometheus duration; write it like 30s, 5m, 1h30m, 15d or 2w",
    ]
    wrong = {
        "monitoring_node_exporter_port": 9100,
        "monitoring_prometheus_port": 9100,
        "monitoring_grafana_port": 70000,
        "monitoring_alertmanager_port": 6818,
        "monitoring_dcgm_exporter_port": 61000,
        "monitoring_slurm_exporter_port": True,
    }
    assert settings_errors({}, wrong) == [
        "monitoring_prometheus_port: 9100 is also monitoring_node_exporter_port; give each monitoring service its own "
        "port",
        "monitoring_grafana_port: 70000 is not a TCP port (1-65535)",
        "monitoring_alertmanager_port: 6818 is slurmd's; choose another port",
        "monitoring_dcgm_exporter_port: 61000 is srun's port range 60001-63000's; choose another port",
        "monitoring_slurm_exporter_port: True is not a TCP port (1-65535)",
    ]


def test_exporters_have_a_timeout_a_cap_and_the_least_grants() -> None:
    from ansible_collections.gpucluster.cluster.plugins.module_utils.monitoring import exporter_errors

    good = {
        "monitoring_slurm_exporter_timeout": 10,
        "monitoring_slurm_exporter_max_connections": 16,
        "monitoring_mysqld_exporter_db_privileges": ["PROCESS", "slave  monitor"],
    }
    assert exporter_errors(good) == []
    assert exporter_errors({**good, "monitoring_slurm_exporter_timeout": 0}) == [
        "monitoring_slurm_exporter_timeout: 0 is not a whole number of 1-3600"
    ]
    wide = exporter_errors({**good, "monitoring_mysqld_exporter_db_privileges": ["PROCESS", "SELECT"]})
    assert wide == [
        "monitoring_mysqld_exporter_db_privileges: SELECT would let mysqld_exporter read every database (mysql.user's "
        "password hashes too); its collectors need PROCESS and SLAVE MONITOR (REPLICATION CLIENT before MariaDB 10.5)"
    ]
    typo = exporter_errors({**good, "monitoring_mysqld_exporter_db_privileges": ["SELECT ON *.*"]})
    assert typo[0].startswith("monitoring_mysqld_exporter_db_privileges: 'SELECT ON *.*' is not a global privilege")


def test_the_web_user_is_one_basic_authentication_carries() -> None:
    assert web_user_errors("gpucluster") == [] and web_user_errors("prom.scraper-1") == []
    for user in ("a:b", "", "two words"):
        (wrong,) = web_user_errors(user)
        assert "is not a basic-authentication user name" in wrong, user


def test_dcgm_exporter_scraped_only_where_it_runs_on_its_own_port() -> None:
    """Prometheus scrapes dcgm-exporter on every compute node: where the gpu role runs none, or on another port than
    it listens, every target is down for good; on a port another exporter takes, one of them cannot start."""
    ports = {"monitoring_node_exporter_port": 9100, "monitoring_dcgm_exporter_port": 9400}

    def settings(running: bool, scraped: bool, port: int = 9400, scrape_port: int = 9400) -> dict[str, object]:
        return {
            "gpu_dcgm_exporter": running,
            "gpu_dcgm_exporter_port": port,
            "monitoring_dcgm_exporter": scraped,
            "monitoring_dcgm_exporter_port": scrape_port,
        }

    assert dcgm_exporter_errors(settings(False, False), ports) == []
    assert dcgm_exporter_errors(settings(True, True), ports) == []
    assert dcgm_exporter_errors(settings(True, False), ports) == []  # (scraped elsewhere, or not at all)
    (nowhere,) = dcgm_exporter_errors(settings(False, True), ports)
    assert "the gpu role runs none (gpu_dcgm_exporter is false)" in nowhere
    (elsewhere,) = dcgm_exporter_errors(settings(True, True, port=9500), ports)
    assert "listens on 9500, Prometheus scrapes 9400" in elsewhere
    (clash,) = dcgm_exporter_errors(settings(True, False, port=9100), ports)
    assert "9100 is also monitoring_node_exporter_port" in clash
    (slurmd,) = dcgm_exporter_errors(settings(True, False, port=6818), ports)
    assert "6818 is also slurmd's port" in slurmd
