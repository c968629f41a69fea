"""Filters that turn the inventory into Prometheus and Alertmanager configuration, through the cluster model."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.module_utils.monitoring import (
    alertmanager_config,
    alertmanager_errors,
    dcgm_exporter_errors,
    exporter_errors,
    prometheus_config_of,
    settings_errors,
    web_user_errors,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.secret_text import (
    MIN_LENGTH,
    OPTION_FILE,
    plain_secret_errors,
    short_secret_errors,
)


def monitoring_prometheus_config(plan: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """prometheus.yml as data: scrape jobs for every exporter the inventory places, from the run's plan (each pod's
    monitoring view). settings: monitoring_hosts, ports (exporter -> port), dcgm (scrape the DCGM exporter),
    dcgm_web (it reads the web configuration), haproxy (scrape the login pool's HAProxy), scrape_interval,
    evaluation_interval, web (ca_file, username, password_file: the exporters with a web configuration, Prometheus
    and Alertmanager reached over HTTPS with basic auth; empty: plain HTTP)."""
    pods = plan["monitoring"]
    return prometheus_config_of(
        next(iter(pods.values())),
        list(settings["monitoring_hosts"]),
        ports=settings.get("ports") or {},
        dcgm=bool(settings.get("dcgm")),
        haproxy=bool(settings.get("haproxy")),
        scrape_interval=str(settings.get("scrape_interval", "30s")),
        evaluation_interval=str(settings.get("evaluation_interval", "30s")),
        pods=pods if "" not in pods else None,
        web=settings.get("web") or None,
        dcgm_web=bool(settings.get("dcgm_web")),
    )


BCRYPT_ALPHABET = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
)


def monitoring_password_hash(password: str, username: str, rounds: int = 10) -> str:
    """A stable bcrypt hash of the monitoring user's password. For a web configuration or HAProxy's userlist, at
    ``rounds`` (bcrypt's cost, 4-31); the salt comes from the user and password, so that the same password gives
    the same hash (a re-run changes nothing) and a new one a new hash."""
    import bcrypt  # controller only (requirements.txt)

    if not 4 <= int(rounds) <= 31:
        raise AnsibleFilterError(f"monitoring_password_hash: rounds is {rounds}; bcrypt's cost is 4 to 31")
    digest = hashlib.sha256(f"{username}:{password}".encode()).digest()[:16]
    salt = base64.b64encode(digest).decode().rstrip("=").translate(BCRYPT_ALPHABET)
    return bcrypt.hashpw(password.encode(), f"$2b${int(rounds):02d}${salt}".encode()).decode()


def monitoring_web_config(password: str, username: str, cert_file: str = "", key_file: str = "") -> dict[str, Any]:
    """The exporter-toolkit web configuration Prometheus, Alertmanager and the exporters read: TLS with the
    host's certificate (when cert_file is given) and basic auth for ``username`` with a bcrypt hash of ``password``
    (monitoring_password_hash: the same password gives the same file, a new one a new file)."""
    config: dict[str, Any] = {}
    if cert_file:
        config["tls_server_config"] = {"cert_file": cert_file, "key_file": key_file}
    config["basic_auth_users"] = {username: monitoring_password_hash(password, username)}
    return config


def monitoring_alertmanager_errors(route: Any, receivers: Any) -> list[str]:
    """What is wrong with the Alertmanager routing tree and receivers (a route naming no receiver, a receiver
    without a destination...), each naming the setting; empty when Alertmanager would load them."""
    return alertmanager_errors(route, receivers)


def monitoring_settings_errors(
    durations: Mapping[str, Any],
    ports: Mapping[str, Any],
    exporters: Mapping[str, Any] | None = None,
    db_password: Any = None,
    *,
    deploying: bool = False,
    tags: Sequence[Sequence[str]] = (("all",), ()),
    grafana_password: Any = None,
    web_user: Any = "gpucluster",
    dcgm: Mapping[str, Any] | None = None,
) -> list[str]:
    """What Prometheus and the exporters would not start with: ``durations`` and ``ports`` by variable name (a
    duration Prometheus does not read, a port out of range, taken twice or a Slurm daemon's), ``exporters``'
    settings (the Slurm exporter's timeout and connection cap, mysqld_exporter's grants: least privilege), and
    mysqld_exporter's database password where there is a database to watch (``db_password``; None: no dbd hosts),
    unset refused in a ``deploying`` run's validation that runs the monitoring role (``tags``: the run's tags and
    skipped tags; render.yml's validation needs no secret), as is Grafana's admin password where Grafana is installed
    (``grafana_password``; None: it is not); the user the exporters' basic authentication takes (``web_user``), and
    the gpu role's dcgm-exporter against what Prometheus scrapes (``dcgm``: the gpu and monitoring roles' settings of
    it by name)."""
    run_tags = set(tags[0] if len(tags) > 0 else ()) or {"all"}
    skip_tags = set(tags[1] if len(tags) > 1 else ())
    required = deploying and "monitoring" not in skip_tags and bool({"all", "monitoring"} & run_tags)
    errors = settings_errors(durations, ports) + exporter_errors(exporters or {}) + web_user_errors(web_user)
    errors += dcgm_exporter_errors(dcgm or {}, ports)
    if required and grafana_password is not None and not str(grafana_password):
        errors.append(
            "monitoring_grafana_admin_password not set, and Grafana is to be installed on the monitoring hosts "
            "(monitoring_grafana_install): give it (Ansible Vault), or set monitoring_grafana_install to false"
        )
    if db_password is None:  # no database to watch
        return errors
    name, password = "monitoring_mysqld_exporter_db_password", str(db_password)
    if not password:
        unset = (
            f"{name} not set, and the dbd group has databases to watch: give one of {MIN_LENGTH} characters or more "
            "(Ansible Vault), or the deployment would stop at the monitoring role after the roles before it changed "
            "the hosts"
        )
        return [*errors, unset] if required else errors
    where = "mysqld_exporter's option file ([client] password)"
    return errors + (short_secret_errors(name, password) or plain_secret_errors(name, password, where, OPTION_FILE))


def monitoring_alertmanager_config(
    route: Mapping[str, Any], receivers: Sequence[Mapping[str, Any]], inhibit_rules: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """alertmanager.yml as a dictionary: the routing tree, the receivers and the inhibit rules of the
    inventory (the run stops with every problem of the settings named when they are wrong)."""
    errors = alertmanager_errors(route, receivers)
    if errors:
        raise AnsibleFilterError("invalid Alertmanager settings:\n- " + "\n- ".join(errors))
    return alertmanager_config(route, receivers, inhibit_rules)


class FilterModule:
    """gpucluster.cluster monitoring filters."""

    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "monitoring_prometheus_config": monitoring_prometheus_config,
            "monitoring_alertmanager_errors": monitoring_alertmanager_errors,
            "monitoring_settings_errors": monitoring_settings_errors,
            "monitoring_alertmanager_config": monitoring_alertmanager_config,
            "monitoring_web_config": monitoring_web_config,
            "monitoring_password_hash": monitoring_password_hash,
        }
