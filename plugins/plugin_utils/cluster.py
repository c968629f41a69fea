"""Controller-side helper of the filter plugins: the cluster model, or the Ansible error listing every
inventory problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import Cluster, InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster, build_pods


def inventory_error(exc: InventoryError) -> AnsibleFilterError:
    return AnsibleFilterError("invalid cluster inventory:\n- " + "\n- ".join(exc.errors))


def cluster_or_raise(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> Cluster:
    """build_cluster(), raising AnsibleFilterError with every problem instead of InventoryError."""
    try:
        return build_cluster(spec, groups)
    except InventoryError as exc:
        raise inventory_error(exc) from exc


def pods_or_raise(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, Cluster]:
    """build_pods() ({"": cluster} or {pod: cluster}), raising AnsibleFilterError with every problem."""
    try:
        return build_pods(spec, groups)
    except InventoryError as exc:
        raise inventory_error(exc) from exc
