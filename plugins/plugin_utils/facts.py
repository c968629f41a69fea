"""A host's gathered facts as the controller-side plugins read them from ``hostvars``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def default_ipv4_address(variables: Mapping[str, Any]) -> str:
    """The address of the host's default IPv4 route (``ansible_facts['default_ipv4']``); "" before facts.

    Read from ``ansible_facts``, which holds the facts however Ansible is configured: the project turns off their
    copies as top-level ``ansible_*`` variables (``inject_facts_as_vars``), which ansible-core deprecates, and which
    Ansible merges again for every task and host. The top-level copy is read where a caller passes only that."""
    facts = variables.get("ansible_facts")
    default = facts.get("default_ipv4") if isinstance(facts, Mapping) else None
    if not isinstance(default, Mapping):
        default = variables.get("ansible_default_ipv4")
    address = default.get("address") if isinstance(default, Mapping) else None
    return str(address or "")
