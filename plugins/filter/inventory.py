"""Filters of playbooks/new-inventory.yml."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.first_inventory import (
    admin_networks,
    answers_errors,
    validation_problems,
)


def new_inventory_errors(answers: Mapping[str, Any]) -> list[str]:
    """What in the answers of playbooks/new-inventory.yml cannot make an inventory (numbers, the cluster name,
    the directory, a management network too small for the hosts), each named; empty when they can."""
    return answers_errors(answers)


def new_inventory_admin_networks(answer: Any) -> list[str]:
    """The administrators' networks of the answer, comma-separated (empty: the host firewall stays off)."""
    return admin_networks(answer)


def new_inventory_validation_problems(output: str) -> list[str]:
    """The problems validate.yml refused the written inventory for, each whole, from the output of its run with
    ANSIBLE_CALLBACK_RESULT_FORMAT=json; the output's last lines where it failed otherwise."""
    return validation_problems(output)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "new_inventory_errors": new_inventory_errors,
            "new_inventory_admin_networks": new_inventory_admin_networks,
            "new_inventory_validation_problems": new_inventory_validation_problems,
        }
