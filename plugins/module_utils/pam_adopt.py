"""pam_slurm_adopt on the compute nodes (cluster_pam_adopt): who still logs in without a job there. pam_access reads
the list before pam_slurm_adopt in sshd's account stack; the names are checked before any host is touched, because
a name pam_access cannot read locks every admin out of every compute node."""

from __future__ import annotations

import re
from typing import Any

# a user or group name as useradd/groupadd and pam_access take it (a machine account may end in $)
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*\$?$")


def _names(value: Any, variable: str, errors: list[str]) -> list[str]:
    if not isinstance(value, list):
        errors.append(f"{variable}: give a list of names, e.g. [admin], not {value!r}")
        return []
    names: list[str] = []
    for item in value:
        if not isinstance(item, str) or not NAME.match(item):
            errors.append(
                f"{variable}: {item!r} is not a user or group name (letters, digits, '_', '.', '-'; not starting"
                " with a digit or '-'); give the name as the nodes know it"
            )
        elif item not in names:
            names.append(item)
    return names


def exempt_errors(users: Any, groups: Any) -> list[str]:
    """What is wrong with slurm_pam_adopt_exempt_users / _groups; empty when both hold."""
    errors: list[str] = []
    _names(users, "slurm_pam_adopt_exempt_users", errors)
    _names(groups, "slurm_pam_adopt_exempt_groups", errors)
    return errors


def access_lines(users: Any, groups: Any) -> list[str]:
    """pam_access's table: root, the users and the groups' members pass from anywhere; nobody else (they go on to
    pam_slurm_adopt, which lets them in only into a job of theirs on the node)."""
    errors: list[str] = []
    names = ["root", *_names(users, "slurm_pam_adopt_exempt_users", errors)]
    names = list(dict.fromkeys(names))
    names += [f"({group})" for group in _names(groups, "slurm_pam_adopt_exempt_groups", errors)]
    if errors:
        raise ValueError("; ".join(errors))
    return [f"+:{' '.join(names)}:ALL", "-:ALL:ALL"]
