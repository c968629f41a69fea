"""Filters that gather what each host of a play reported, for the tasks that decide over all of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ansible.errors import AnsibleUndefinedVariable


def host_values(hosts: Iterable[str], hostvars: Mapping[str, Any], name: str, attribute: str = "") -> dict[str, Any]:
    """Each host's variable ``name`` by host (a registered result's ``attribute`` where one is named), "" where
    the host has none (the variable unset or undefined where it is read - a template over facts not gathered -, or
    the result skipped and without the attribute)."""
    values: dict[str, Any] = {}
    for host in hosts:
        try:
            value = hostvars[host].get(name)
        except AnsibleUndefinedVariable:
            value = None
        if attribute:
            value = value.get(attribute) if isinstance(value, Mapping) else None
        values[host] = "" if value is None else value
    return values


def item_values(results: Iterable[Mapping[str, Any]], attribute: str, default: Any = "") -> dict[str, Any]:
    """A looped task's results by item (each loop item's result ``attribute``; ``default`` where it has none)."""
    values: dict[str, Any] = {}
    for result in results:
        value = result.get(attribute)
        values[str(result.get("item"))] = default if value is None else value
    return values


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"host_values": host_values, "item_values": item_values}
