#!/usr/bin/python
"""Report one MariaDB Galera node's state: running or not, its component, its position on disk and,
on request, the settings the slurmdbd preflight checks. Changes nothing."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: galera_node
short_description: Report a MariaDB Galera node's state and position
description:
  - Reads whether the MariaDB service is active, C(wsrep_cluster_status) of a running node, and
    C(grastate.dat) of its data directory.
  - For a stopped node whose C(grastate.dat) says seqno -1 (it crashed), runs C(galera_recovery) to
    recover the last committed position from InnoDB, so that a fully stopped cluster can be restarted
    from the most advanced node.
  - Reports whether a running server runs as a Galera node (C(wsrep_on)), and the databases its data
    directory holds besides MariaDB's own (a standalone server's data migrating to Galera).
  - With O(variables), also returns the server variables and status values the slurmdbd preflight checks.
  - Changes nothing on the node.
version_added: "0.2.0"
author: gpucluster maintainers
options:
  service:
    description: systemd unit of the server.
    type: str
    default: mariadb
  datadir:
    description: Data directory holding grastate.dat.
    type: path
    default: /var/lib/mysql
  socket:
    description: Unix socket to query as root (unix_socket authentication).
    type: path
    default: /run/mysqld/mysqld.sock
  variables:
    description: Names of global variables and status values to return (running node only).
    type: list
    elements: str
    default: []
  recover:
    description: Run C(galera_recovery) on a stopped node whose seqno is -1.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Read the node's state
  gpucluster.cluster.galera_node:
  register: _galera_node
"""

RETURN = r"""
active:
  description: Whether the server runs.
  type: bool
  returned: always
cluster_status:
  description: wsrep_cluster_status (Primary, non-Primary, Disconnected); empty when stopped.
  type: str
  returned: always
wsrep_on:
  description: Whether the running server has Galera replication on (false for a standalone server; true when stopped).
  type: bool
  returned: always
databases:
  description: Databases in the data directory besides mysql, performance_schema and sys.
  type: list
  elements: str
  returned: always
grastate:
  description: uuid, seqno and safe_to_bootstrap of grastate.dat (empty uuid when the file is absent).
  type: dict
  returned: always
replication_tls:
  description: Whether a server running as a Galera node has TLS on its replication socket; null when it does not
    run as one (stopped, or standalone).
  type: bool
  returned: always
recovered_seqno:
  description: The seqno galera_recovery found, when it ran.
  type: int
  returned: when recovered
variables:
  description: Lower-cased name -> value of the requested variables and status values.
  type: dict
  returned: always
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpucluster.cluster.plugins.module_utils.galera import (
    parse_grastate,
    recovered_position,
    replication_tls,
)


def query(module: AnsibleModule, socket: str, sql: str) -> dict[str, str]:
    rc, out, err = module.run_command(["mariadb", f"--socket={socket}", "--batch", "--skip-column-names", "-e", sql])
    if rc != 0:
        module.fail_json(msg=f"query on {socket} failed: {err.strip() or out.strip()}")
    rows = (line.split("\t", 1) for line in out.splitlines() if "\t" in line)
    return {name.lower(): value for name, value in rows}


SYSTEM_DATABASES = {"mysql", "performance_schema", "sys", "lost+found"}


def databases(datadir: str) -> list[str]:
    """The databases of a data directory (one subdirectory each) besides MariaDB's own."""
    if not os.path.isdir(datadir):
        return []
    return sorted(
        name
        for name in os.listdir(datadir)
        if os.path.isdir(os.path.join(datadir, name)) and name not in SYSTEM_DATABASES and not name.startswith("#")
    )


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "service": {"type": "str", "default": "mariadb"},
            "datadir": {"type": "path", "default": "/var/lib/mysql"},
            "socket": {"type": "path", "default": "/run/mysqld/mysqld.sock"},
            "variables": {"type": "list", "elements": "str", "default": []},
            "recover": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    params = module.params
    _, out, _ = module.run_command(["systemctl", "is-active", params["service"]])
    active = out.strip() in ("active", "activating", "reloading")
    result: dict[str, object] = {
        "changed": False,
        "active": active,
        "cluster_status": "",
        "variables": {},
        "wsrep_on": True,
        "databases": databases(params["datadir"]),
        "replication_tls": None,
    }
    if active:
        status = query(module, params["socket"], "SHOW GLOBAL STATUS LIKE 'wsrep_cluster_status'")
        result["cluster_status"] = status.get("wsrep_cluster_status", "")
        wsrep = query(module, params["socket"], "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")
        result["wsrep_on"] = wsrep.get("wsrep_on", "OFF").upper() == "ON"
        if result["wsrep_on"]:
            options = query(module, params["socket"], "SHOW GLOBAL VARIABLES LIKE 'wsrep_provider_options'")
            result["replication_tls"] = replication_tls(options.get("wsrep_provider_options", ""))
        if params["variables"]:
            names = ", ".join("'" + re.sub(r"[^a-z0-9_]", "", name.lower()) + "'" for name in params["variables"])
            values = query(module, params["socket"], f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({names})")
            values.update(query(module, params["socket"], f"SHOW GLOBAL STATUS WHERE Variable_name IN ({names})"))
            result["variables"] = values
    path = os.path.join(params["datadir"], "grastate.dat")
    state = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as stream:
            state = parse_grastate(stream.read())
    result["grastate"] = (
        {"uuid": state.uuid, "seqno": state.seqno, "safe_to_bootstrap": state.safe_to_bootstrap}
        if state
        else {"uuid": "", "seqno": -1, "safe_to_bootstrap": False}
    )
    if not active and state and state.uuid and state.seqno < 0 and params["recover"]:
        # galera_recovery starts mysqld --wsrep-recover (no networking, no replication) and prints
        # --wsrep_start_position=<uuid>:<seqno>; the server's log holds the same line.
        _, out, err = module.run_command(["galera_recovery"])
        found = re.search(r"--wsrep_start_position=([0-9a-f-]{36}):(-?\d+)", out)
        position = (found.group(1), int(found.group(2))) if found else recovered_position(out + err)
        if position:
            result["recovered_seqno"] = position[1]
    module.exit_json(**result)


if __name__ == "__main__":
    main()
