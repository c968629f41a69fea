"""Prometheus and Alertmanager configuration from the cluster model.

Scrape targets follow the inventory's groups: node_exporter on every host (compute nodes labelled with
their node type), the Slurm exporter on the controllers, mysqld_exporter on the accounting hosts, the DCGM
exporter on GPU nodes where it runs, HAProxy's exporter on the login pool's nodes, Prometheus and
Alertmanager on the monitoring hosts, and slurmctld's own OpenMetrics endpoints where the release has them (Slurm
25.11 and later: one job per endpoint, the series renamed slurmctld_* so that they never mix with the exporter's
slurm_* ones; a pair is scraped at its virtual IP, which follows the controller in charge). Targets are the
inventory names (the names Slurm uses), and `instance` is the bare name so that node_exporter, DCGM and
Slurm series of one node join on it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .cluster_types import Cluster
from .hostlist import expand, fold, holds
from .slurmconf import metrics_enabled
from .values import whole_in_range

DEFAULT_PORTS = {
    "node": 9100,
    "slurm": 9341,
    "mysqld": 9104,
    "dcgm": 9400,
    "haproxy": 8405,
    "prometheus": 9090,
    "alertmanager": 9093,
}
# instance = the host name without the port.
INSTANCE_RELABEL = [{"source_labels": ["__address__"], "regex": "([^:]+):\\d+", "target_label": "instance"}]


def _targets(hosts: Sequence[str], port: int) -> list[str]:
    return [f"{host}:{port}" for host in dict.fromkeys(hosts)]


def _job(name: str, groups: list[tuple[Sequence[str], Mapping[str, str]]], port: int) -> dict[str, Any] | None:
    static = [
        {"targets": _targets(hosts, port), **({"labels": dict(labels)} if labels else {})}
        for hosts, labels in groups
        if hosts
    ]
    if not static:
        return None
    return {"job_name": name, "static_configs": static, "relabel_configs": INSTANCE_RELABEL}


# slurmctld's endpoints Prometheus reads (/metrics/jobs-users-accts is left out: a series per user and account).
SLURMCTLD_ENDPOINTS = ("jobs", "nodes", "partitions", "scheduler")
SLURMCTLD_RENAME = [
    {"source_labels": ["__name__"], "regex": "slurm_(.*)", "target_label": "__name__", "replacement": "slurmctld_$1"}
]


def slurmctld_port(cluster: Cluster) -> int:
    """SlurmctldPort (the first of a range), 6817 unless cluster_slurm_config sets it."""
    for key, value in cluster.slurm_config:
        if key.lower() == "slurmctldport" and str(value).split("-")[0].isdigit():
            return int(str(value).split("-")[0])
    return 6817


def monitoring_view(cluster: Cluster) -> dict[str, Any]:
    """What Prometheus' configuration reads of a cluster, as plain data (part of the run's plan): the service hosts,
    the compute nodes and each node type's hosts folded (small at 12,800 nodes), slurmctld's endpoints."""
    return {
        "name": cluster.name,
        "federation": cluster.federation,
        "controllers": list(cluster.controllers),
        "dbd": list(cluster.dbd),
        "login": list(cluster.login),
        "storage": list(cluster.storage),
        "compute": fold(cluster.compute),
        "controller_vip": cluster.controller_vip,
        "node_types": [
            {"name": nt.name, "hosts": fold(nt.hosts), "gpu_type": nt.gpu.type if nt.gpu else ""}
            for nt in cluster.node_types
        ],
        "slurmctld_metrics": metrics_enabled(cluster),
        "slurmctld_port": slurmctld_port(cluster),
    }


def slurmctld_metrics_jobs(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A job per endpoint of slurmctld (MetricsType=metrics/openmetrics); none where the release has none."""
    if not view["slurmctld_metrics"]:
        return []
    targets = [view["controller_vip"]] if view["controller_vip"] else list(view["controllers"])
    jobs = []
    for endpoint in SLURMCTLD_ENDPOINTS:
        job = _job(f"slurmctld_{endpoint}", [(targets, {})], int(view["slurmctld_port"]))
        if job:
            jobs.append({**job, "metrics_path": f"/metrics/{endpoint}", "metric_relabel_configs": SLURMCTLD_RENAME})
    return jobs


def scrape_configs(
    view: Mapping[str, Any],
    monitoring_hosts: Sequence[str],
    ports: Mapping[str, int],
    dcgm: bool,
    haproxy: bool = False,
) -> list[dict[str, Any]]:
    """One job per exporter; compute nodes in one static group per node type (O(node types) entries)."""
    port = {**DEFAULT_PORTS, **ports}
    service_hosts = [
        h
        for h in (*view["controllers"], *view["dbd"], *view["login"], *view["storage"], *monitoring_hosts)
        if not holds(view["compute"], h)
    ]
    node_types = [(expand(nt["hosts"]) if nt["hosts"] else [], nt) for nt in view["node_types"]]
    node_groups: list[tuple[Sequence[str], Mapping[str, str]]] = [(service_hosts, {})]
    node_groups += [(hosts, {"node_type": nt["name"]}) for hosts, nt in node_types]
    gpu_groups: list[tuple[Sequence[str], Mapping[str, str]]] = [
        (hosts, {"node_type": nt["name"], "gpu_type": nt["gpu_type"]}) for hosts, nt in node_types if nt["gpu_type"]
    ]
    jobs = [
        _job("node", node_groups, port["node"]),
        _job("slurm", [(view["controllers"], {})], port["slurm"]),
        _job("mysqld", [(view["dbd"], {})], port["mysqld"]),
        _job("dcgm", gpu_groups if dcgm else [], port["dcgm"]),
        _job("haproxy", [(view["login"], {})] if haproxy else [], port["haproxy"]),
        _job("prometheus", [(monitoring_hosts, {})], port["prometheus"]),
        _job("alertmanager", [(monitoring_hosts, {})], port["alertmanager"]),
        *slurmctld_metrics_jobs(view),
    ]
    return [job for job in jobs if job]


def federation_scrape_configs(
    pods: Mapping[str, Mapping[str, Any]],
    monitoring_hosts: Sequence[str],
    ports: Mapping[str, int],
    dcgm: bool,
    haproxy: bool,
) -> list[dict[str, Any]]:
    """One Prometheus for every pod of a federation: each pod's jobs merged by name, every target once, and
    the groups of a pod's own hosts (controllers, login, node types) labelled slurm_cluster=<pod>."""
    jobs: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, str]] = set()
    for pod, view in pods.items():
        hosts = (*view["controllers"], *(expand(view["compute"]) if view["compute"] else []), *view["login"])
        own = {f"{host}:" for host in (*hosts, view["controller_vip"])}
        for job in scrape_configs(view, monitoring_hosts, ports, dcgm, haproxy):
            merged = jobs.setdefault(job["job_name"], {**job, "static_configs": []})
            for group in job["static_configs"]:
                targets = [t for t in group["targets"] if (job["job_name"], t) not in seen]
                seen.update((job["job_name"], t) for t in targets)
                if not targets:
                    continue
                labels = dict(group.get("labels", {}))
                if all(t[: t.rindex(":") + 1] in own for t in targets):
                    labels["slurm_cluster"] = pod
                merged["static_configs"].append({"targets": targets, **({"labels": labels} if labels else {})})
    return list(jobs.values())


# The endpoints that serve TLS and ask for the monitoring user: the node, Slurm and MariaDB exporters, Prometheus
# and Alertmanager (their web configuration), HAProxy's exporter on the login pool (the login_pool role's
# frontend), and DCGM's where it is given the web configuration (dcgm-exporter 3.3.5-3.4.0 and later).
# slurmctld's own endpoints are scraped as they serve (the firewall admits only the monitoring hosts).
SECURED_JOBS = frozenset({"node", "slurm", "mysqld", "haproxy", "prometheus", "alertmanager"})


def client_settings(web: Mapping[str, str]) -> dict[str, Any]:
    """How Prometheus reaches a secured endpoint: HTTPS verified against the cluster CA (plain HTTP without a
    ca_file), basic auth with the password read from a file. web: ca_file, username, password_file."""
    auth = {"basic_auth": {"username": web["username"], "password_file": web["password_file"]}}
    if not web.get("ca_file"):
        return {"scheme": "http", **auth}
    return {"scheme": "https", "tls_config": {"ca_file": web["ca_file"]}, **auth}


def secured(
    jobs: Sequence[dict[str, Any]], web: Mapping[str, str] | None, also: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """The jobs, those of SECURED_JOBS (and ``also``) scraped with client_settings(web) where ``web`` is given."""
    if not web:
        return list(jobs)
    names = SECURED_JOBS | also
    return [{**job, **client_settings(web)} if job["job_name"] in names else job for job in jobs]


def prometheus_config(
    cluster: Cluster,
    monitoring_hosts: Sequence[str],
    *,
    pods: Mapping[str, Cluster] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """prometheus_config_of the cluster's (and the pods') monitoring_view."""
    views = {pod: monitoring_view(one) for pod, one in pods.items()} if pods else None
    return prometheus_config_of(monitoring_view(cluster), monitoring_hosts, pods=views, **settings)


def prometheus_config_of(
    cluster: Mapping[str, Any],
    monitoring_hosts: Sequence[str],
    *,
    ports: Mapping[str, int] | None = None,
    dcgm: bool = False,
    haproxy: bool = False,
    scrape_interval: str = "30s",
    evaluation_interval: str = "30s",
    pods: Mapping[str, Mapping[str, Any]] | None = None,
    web: Mapping[str, str] | None = None,
    dcgm_web: bool = False,
) -> dict[str, Any]:
    """prometheus.yml from a cluster's monitoring_view: global settings with the cluster as external label,
    Alertmanagers, rules, scrapes. With ``pods`` (a federation: each pod's view), the scrapes of every pod and the
    federation's name as external label. With ``web`` (ca_file, username, password_file), the exporters that serve
    TLS and basic auth and Alertmanager are reached over HTTPS with that user; DCGM's exporter too with
    ``dcgm_web`` (it reads the web configuration)."""
    port = {**DEFAULT_PORTS, **(ports or {})}
    scrapes = (
        federation_scrape_configs(pods, monitoring_hosts, port, dcgm, haproxy)
        if pods
        else scrape_configs(cluster, monitoring_hosts, port, dcgm, haproxy)
    )
    alertmanagers: dict[str, Any] = {"static_configs": [{"targets": _targets(monitoring_hosts, port["alertmanager"])}]}
    if web:
        alertmanagers.update(client_settings(web))
    return {
        "global": {
            "scrape_interval": scrape_interval,
            "evaluation_interval": evaluation_interval,
            "external_labels": {"cluster": cluster["federation"] or cluster["name"]},
        },
        "alerting": {"alertmanagers": [alertmanagers]},
        "rule_files": ["rules/*.yml"],
        "scrape_configs": secured(scrapes, web, frozenset({"dcgm"}) if dcgm_web else frozenset()),
    }


def _route_receivers(route: Mapping[str, Any]) -> list[str]:
    names = [str(route["receiver"])] if route.get("receiver") else []
    for child in route.get("routes") or []:
        if isinstance(child, Mapping):
            names += _route_receivers(child)
    return names


def _receiver_key_errors(name: str, receiver: Mapping[str, Any]) -> list[str]:
    """A receiver holds its name and lists of notifier configs (``email_configs``, ``webhook_configs``, ...):
    Alertmanager reads its file strictly, so any other key (``email:`` for ``email_configs:``) or a config that is not
    a list stops amtool's check at the deploy's last step, Alertmanager left on its old receivers."""
    errors = []
    for key, value in receiver.items():
        where = f"monitoring_alertmanager_receivers[{name}].{key}"
        if key == "name":
            continue
        if not str(key).endswith("_configs"):
            errors.append(
                f"{where}: a receiver holds its name and lists of notifier configs (email_configs, webhook_configs, "
                f"slack_configs, ...); Alertmanager refuses '{key}' - did you mean {key}_configs: [{{...}}]?"
            )
        elif not isinstance(value, list):
            errors.append(f"{where}: give a list of configs ({key}: [{{...}}]), one per notifier")
    return errors


def _receiver_url_errors(name: str, receiver: Mapping[str, Any]) -> list[str]:
    """The URLs of a receiver's notifiers (webhook url, Slack's api_url, ...): Alertmanager reads only http and https
    ones ("unsupported scheme"), and amtool's check keeps the running configuration, so alerts would go on to the old
    receivers after the deploy stopped there."""
    errors = []
    for kind, configs in receiver.items():
        if not str(kind).endswith("_configs") or not isinstance(configs, list):
            continue
        for index, config in enumerate(configs):
            for key, value in config.items() if isinstance(config, Mapping) else ():
                if str(key).endswith("url") and isinstance(value, str) and not re.match(r"https?://[^\s/]", value):
                    errors.append(
                        f"monitoring_alertmanager_receivers[{name}].{kind}[{index}].{key}: {value!r} is not an http "
                        "or https URL; Alertmanager refuses it (unsupported scheme) - write it whole, e.g. "
                        "https://hooks.example.org/alerts"
                    )
    return errors


def alertmanager_errors(route: Any, receivers: Any) -> list[str]:
    """Problems of monitoring_alertmanager_route/receivers, each naming the variable and the fix."""
    errors = []
    if not isinstance(receivers, list) or not receivers:
        return [
            "monitoring_alertmanager_receivers: give a list with at least one receiver ({name: ..., <type>_configs})"
        ]
    names = []
    for index, receiver in enumerate(receivers):
        if not isinstance(receiver, Mapping) or not receiver.get("name"):
            errors.append(f"monitoring_alertmanager_receivers[{index}]: a receiver needs a name")
            continue
        names.append(str(receiver["name"]))
        errors += _receiver_key_errors(str(receiver["name"]), receiver)
        errors += _receiver_url_errors(str(receiver["name"]), receiver)
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        errors.append(
            f"monitoring_alertmanager_receivers: {', '.join(duplicates)} declared twice; names must be unique"
        )
    if not isinstance(route, Mapping) or not route.get("receiver"):
        errors.append("monitoring_alertmanager_route: the top route needs a receiver (the default for every alert)")
        return errors
    unknown = [name for name in _route_receivers(route) if name not in names]
    if unknown:
        errors.append(
            f"monitoring_alertmanager_route: receiver {', '.join(sorted(set(unknown)))} is not in "
            f"monitoring_alertmanager_receivers ({', '.join(names)}); add it there or fix the name"
        )
    return errors


def alertmanager_config(
    route: Mapping[str, Any], receivers: Sequence[Mapping[str, Any]], inhibit_rules: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """alertmanager.yml; a node that is down does not also page for what runs on it."""
    return {
        "route": {"group_by": ["alertname", "cluster"], **route},
        "receivers": list(receivers),
        "inhibit_rules": list(inhibit_rules),
    }


# A Prometheus duration: units from the largest down, each once (30s, 1h30m, 15d, 2w); what Prometheus takes.
_DURATION = re.compile(r"^(?=\d)(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?$")
# Ports the Slurm daemons listen on (slurmctld, slurmd, slurmdbd, slurmrestd) and srun's range (SrunPortRange)
_SLURM_PORTS = {6817: "slurmctld", 6818: "slurmd", 6819: "slurmdbd", 6820: "slurmrestd"}
_SRUN_PORTS = range(60001, 63001)


# MariaDB's global privileges (10.5 and later names, and the older ones it still takes) a GRANT ... ON *.* takes;
# SELECT and ALL would let mysqld_exporter read every database, the password hashes of mysql.user among them.
MARIADB_PRIVILEGES = frozenset(
    {
        "BINLOG MONITOR",
        "CONNECTION ADMIN",
        "PROCESS",
        "RELOAD",
        "REPLICA MONITOR",
        "REPLICATION CLIENT",
        "SHOW DATABASES",
        "SLAVE MONITOR",
        "USAGE",
    }
)
READ_EVERYTHING = frozenset({"SELECT", "ALL", "ALL PRIVILEGES", "SUPER", "FILE"})


def exporter_errors(settings: Mapping[str, Any]) -> list[str]:
    """The Slurm exporter's client timeout and connection cap (0 would let idle clients hold it for ever or serve
    none) and mysqld_exporter's grants (``settings``: variable -> value): privileges MariaDB knows, none that reads
    every database."""
    errors = []
    for name, top in (("monitoring_slurm_exporter_timeout", 3600), ("monitoring_slurm_exporter_max_connections", 4096)):
        if name in settings and not whole_in_range(settings[name], 1, top):
            errors.append(f"{name}: {settings[name]!r} is not a whole number of 1-{top}")
    privileges = settings.get("monitoring_mysqld_exporter_db_privileges") or []
    for privilege in privileges if isinstance(privileges, Sequence) and not isinstance(privileges, str) else []:
        word = " ".join(str(privilege).upper().split())
        if word in READ_EVERYTHING:
            errors.append(
                f"monitoring_mysqld_exporter_db_privileges: {privilege} would let mysqld_exporter read every database "
                "(mysql.user's password hashes too); its collectors need PROCESS and SLAVE MONITOR (REPLICATION "
                "CLIENT before MariaDB 10.5)"
            )
        elif word not in MARIADB_PRIVILEGES:
            errors.append(
                f"monitoring_mysqld_exporter_db_privileges: {privilege!r} is not a global privilege a monitoring user "
                f"needs; use {', '.join(sorted(MARIADB_PRIVILEGES))}"
            )
    return errors


def web_user_errors(user: Any) -> list[str]:
    """monitoring_web_user as HTTP basic authentication carries it ("user:password" in base64): a colon ends the
    name there - the exporters would refuse every scrape and every target would be down -, and an empty name, a space
    or a control character are no name Prometheus, Grafana and the exporters' web configuration agree on."""
    text = str(user if user is not None else "")
    if text and ":" not in text and not any(char.isspace() or ord(char) < 32 for char in text):
        return []
    return [
        f"monitoring_web_user: {text!r} is not a basic-authentication user name (a colon ends the name, and every "
        "scrape would be refused); give letters, digits, '-', '_' or '.' (default gpucluster)"
    ]


def dcgm_exporter_errors(settings: Mapping[str, Any], ports: Mapping[str, Any]) -> list[str]:
    """The gpu role's dcgm-exporter (gpu_dcgm_exporter, on gpu_dcgm_exporter_port) against what Prometheus scrapes on
    the compute nodes (monitoring_dcgm_exporter, on monitoring_dcgm_exporter_port; ``settings``: those by name, the
    switches as booleans):
    scraped where none runs, or on another port, every compute node's target is down for good; on a port another
    exporter of the node takes (``ports``: the monitoring services' by name), one of the two cannot start."""
    running, scraped = settings.get("gpu_dcgm_exporter") is True, settings.get("monitoring_dcgm_exporter") is True
    port, scrape_port = str(settings.get("gpu_dcgm_exporter_port")), str(settings.get("monitoring_dcgm_exporter_port"))
    if scraped and not running:
        return [
            "monitoring_dcgm_exporter: Prometheus would scrape dcgm-exporter on every compute node, but the gpu role "
            "runs none (gpu_dcgm_exporter is false): every target would be down. Set gpu_dcgm_exporter: true (with the "
            "binary in gpu_dcgm_exporter_binary), or monitoring_dcgm_exporter: false"
        ]
    if not running:
        return []
    if scraped and port != scrape_port:
        return [
            f"gpu_dcgm_exporter_port: dcgm-exporter listens on {port}, Prometheus scrapes {scrape_port} "
            "(monitoring_dcgm_exporter_port): every target would be down; give both the same port"
        ]
    taken = [name for name, value in ports.items() if "dcgm" not in name and str(value) == port]
    if taken or port in {str(p) for p in _SLURM_PORTS}:
        owner = taken[0] if taken else f"{_SLURM_PORTS[int(port)]}'s port"
        return [f"gpu_dcgm_exporter_port: {port} is also {owner} on the compute nodes; give dcgm-exporter another port"]
    return []


def settings_errors(durations: Mapping[str, Any], ports: Mapping[str, Any]) -> list[str]:
    """What Prometheus, Alertmanager and the exporters would not start with, by variable: a duration Prometheus does
    not read (it stops on its command line or prometheus.yml), a port outside 1-65535, two of the monitoring
    services on one port (node_exporter runs on every host, beside the others), a port of a Slurm daemon or of
    srun's range."""
    errors: list[str] = []
    for name, value in durations.items():
        if not _DURATION.match(str(value)):
            errors.append(f"{name}: {value!r} is not a Prometheus duration; write it like 30s, 5m, 1h30m, 15d or 2w")
    seen: dict[int, str] = {}
    for name, value in ports.items():
        if not whole_in_range(value, 1, 65535):
            errors.append(f"{name}: {value!r} is not a TCP port (1-65535)")
            continue
        port = int(str(value))
        if port in seen:
            errors.append(f"{name}: {port} is also {seen[port]}; give each monitoring service its own port")
        elif port in _SLURM_PORTS or port in _SRUN_PORTS:
            owner = _SLURM_PORTS.get(port, "srun's port range 60001-63000")
            errors.append(f"{name}: {port} is {owner}'s; choose another port")
        else:
            seen[port] = name
    return errors
