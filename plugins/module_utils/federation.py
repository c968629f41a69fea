"""Phase 3: a Slurm federation of pods, each pod one Slurm cluster, on one accounting database.

``cluster_federation`` names the federation and its pods; each pod is an inventory group holding its
controllers, compute nodes and login nodes. The pod's model is the inventory's one model scoped to the
pod: the role groups (controllers, compute, login, node-type groups) cut down to the pod's hosts, the
shared tier (dbd, galera, storage, monitoring) kept whole, ClusterName = the pod's name, and the few
per-pod settings of ``cluster_federation.pods.<pod>`` (fabric, release, controller VIP, slurm.conf
extras) laid over the shared ones. Node types, partitions and QOS are declared once: QOS live in the one
database, so the pods cannot disagree about them.

``scope_to_pod`` gives one pod's input to ``build_cluster``; ``federation_errors`` checks the rules
that span pods (unique names, one pod per host, one slurmdbd, releases within slurmdbd's window).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .hostlist import fold
from .releases import DEFAULT_RELEASE, KNOWN_RELEASES, Release, accepts, compatibility_window
from .schema import keys

# Groups every pod shares: the accounting tier, the storage servers and the monitoring hosts.
SHARED_GROUPS = ("dbd", "galera", "storage", "monitoring")
# Groups whose hosts must each belong to exactly one pod.
POD_ROLE_GROUPS = ("controllers", "compute", "login")
# A federation holds at most 63 clusters (Slurm: the cluster id is 6 bits of the federated job id).
MAX_CLUSTERS = 63
FEDERATION_KEYS = keys("cluster_federation")
POD_KEYS = keys("cluster_federation.pods.<pod>")
# slurm.conf keys that must be the same in every pod: one slurmdbd serves them all.
SHARED_SETTINGS = (
    "AccountingStorageHost",
    "AccountingStorageBackupHost",
    "AccountingStoragePort",
    "AccountingStorageType",
)
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


@dataclass(frozen=True, slots=True)
class Pod:
    name: str
    group: str
    overrides: Mapping[str, Any]

    def settings(self, shared: Mapping[str, Any]) -> dict[str, Any]:
        """The shared settings with this pod's own in place of theirs: the one place where a pod's setting replaces
        the shared one (the model's input, the StateSaveLocation the roles read, the checks across pods)."""
        return {**shared, **self.overrides}


@dataclass(frozen=True, slots=True)
class Federation:
    name: str
    pods: tuple[Pod, ...]

    def pod(self, name: str) -> Pod | None:
        return next((pod for pod in self.pods if pod.name == name), None)

    def pod_of_groups(self, group_names: Sequence[str]) -> Pod | None:
        """The pod whose group is one of a host's groups (its group_names), or None."""
        return next((pod for pod in self.pods if pod.group in group_names), None)


def read_federation(spec: Mapping[str, Any]) -> tuple[Federation | None, list[str]]:
    """The federation of the spec (None when the inventory is one cluster), with shape errors."""
    raw = spec.get("federation")
    if not raw:
        return None, []
    if not isinstance(raw, Mapping):
        return None, ["cluster_federation: expected a mapping with 'name' and 'pods'"]
    errors = [
        f"cluster_federation: unknown key '{key}'; allowed keys are {', '.join(FEDERATION_KEYS)}"
        for key in raw
        if key not in FEDERATION_KEYS
    ]
    name = str(raw.get("name") or spec.get("name") or "")
    pods_raw = raw.get("pods") or {}
    if not isinstance(pods_raw, Mapping):
        return None, [*errors, "cluster_federation.pods: expected a mapping of pod name -> settings"]
    pods: list[Pod] = []
    for pod_name, raw_body in pods_raw.items():
        where = f"cluster_federation.pods.{pod_name}"
        body = raw_body or {}
        if not isinstance(body, Mapping):
            errors.append(f"{where}: expected a mapping of settings (or nothing), got {type(body).__name__}")
            continue
        for key in body:
            if key not in POD_KEYS:
                hint = (
                    "; QOS, node types and partitions are declared once (cluster_qos, cluster_node_types, "
                    "cluster_partitions) for every pod: QOS live in the one accounting database"
                    if key in ("qos", "node_types", "partitions")
                    else ""
                )
                errors.append(f"{where}: unknown key '{key}'; allowed keys are {', '.join(POD_KEYS)}{hint}")
        overrides = {key: value for key, value in body.items() if key in POD_KEYS and key != "group"}
        pods.append(Pod(str(pod_name), str(body.get("group") or pod_name), overrides))
    return Federation(name, tuple(pods)), errors


def federation_of(raw: Mapping[str, Any] | None) -> Federation | None:
    """The federation of a cluster_federation value (None when empty), for the filters that only need its pods."""
    federation, _ = read_federation({"federation": raw or {}, "name": "federation"})
    return federation


def pod_of(host: str, groups: Mapping[str, Sequence[str]], federation: Federation) -> str:
    """The pod (name) whose group holds the host, or ""."""
    for pod in federation.pods:
        if host in groups.get(pod.group, ()):
            return pod.name
    return ""


def host_independent(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec without what a host's own view adds and build_pods does not read: the host's pod (set per pod) and,
    in a federation, the inventory-wide controller VIP (each pod's is its own, see scope_to_pod), which a pod's
    hosts may see as their pod's pacemaker_vip."""
    ignored = {"pod", "controller_vip"} if spec.get("federation") else {"pod"}
    return {str(key): value for key, value in spec.items() if key not in ignored}


def scope_to_pod(
    spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]
) -> tuple[dict[str, Any], dict[str, Sequence[str]], list[str]]:
    """One pod's model input: the spec with the pod's name and settings, the groups cut to the pod.

    ``spec['pod']`` names the pod; a spec without a federation comes back as it is."""
    federation, errors = read_federation(spec)
    plain = {key: value for key, value in spec.items() if key not in ("federation", "pod")}
    if federation is None:
        return plain, dict(groups), errors
    pod_name = str(spec.get("pod") or "")
    pod = federation.pod(pod_name)
    if pod is None:
        known = ", ".join(p.name for p in federation.pods) or "none"
        errors.append(
            f"cluster_federation: the model was asked for pod '{pod_name}', which is not one of its pods ({known}); "
            "put the host into one of the pod groups"
        )
        return plain, dict(groups), errors
    members = set(groups.get(pod.group, ()))
    scoped: dict[str, Sequence[str]] = {
        name: list(hosts) if name in SHARED_GROUPS else [host for host in hosts if host in members]
        for name, hosts in groups.items()
    }
    # The VIP follows the pod's own controller pair: never another pod's (nor the inventory-wide default).
    result = {**pod.settings({**plain, "controller_vip": ""}), "name": pod.name, "federation": federation.name}
    # Addresses of every pod's controllers (facts of the whole inventory): this pod's only.
    addresses = spec.get("controller_addresses")
    if isinstance(addresses, Mapping):
        result["controller_addresses"] = {host: address for host, address in addresses.items() if host in members}
    # Node types of other pods only: not part of this pod's slurm.conf.
    node_types = spec.get("node_types")
    if isinstance(node_types, Mapping):
        kept = {
            name: body
            for name, body in node_types.items()
            if not isinstance(body, Mapping) or scoped.get(str(body.get("group") or name))
        }
        result["node_types"] = kept
        result["partitions"] = _partitions_of(spec.get("partitions"), set(node_types) - set(kept))
    return result, scoped, errors


def _partitions_of(partitions: Any, dropped: set[str]) -> Any:
    """Partitions without the node types that have no host in the pod; a partition of such node types only
    is not part of the pod (a federated job to it gets siblings on the pods that have it)."""
    if not dropped or not isinstance(partitions, Sequence) or isinstance(partitions, str):
        return partitions
    result = []
    for partition in partitions:
        types = partition.get("node_types") if isinstance(partition, Mapping) else None
        if not isinstance(types, Sequence) or isinstance(types, str):
            result.append(partition)
            continue
        kept = [name for name in types if name not in dropped]
        if kept or partition.get("groups") or partition.get("features"):
            result.append({**partition, "node_types": kept})
    return result


def federation_errors(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> list[str]:
    """The rules that span pods; each error names the variable, group or host and says how to fix it."""
    federation, errors = read_federation(spec)
    if federation is None:
        return errors
    if not NAME_RE.match(federation.name):
        errors.append(
            f"cluster_federation.name: '{federation.name}' is not a valid federation name; use lowercase letters, "
            "digits and '_', starting with a letter, at most 40 characters (default: cluster_name)"
        )
    if not federation.pods:
        errors.append("cluster_federation.pods: empty; list the pods (inventory groups), at least one")
    if len(federation.pods) > MAX_CLUSTERS:
        errors.append(
            f"cluster_federation.pods: {len(federation.pods)} pods; a Slurm federation holds at most "
            f"{MAX_CLUSTERS} clusters, so make the pods larger or run a second federation"
        )
    errors += _pod_names(federation, groups)
    errors += _pod_membership(federation, groups)
    if not groups.get("dbd"):
        errors.append(
            "inventory: group 'dbd' is empty; a federation lives in slurmdbd: add the slurmdbd host(s) every pod shares"
        )
    errors += _pod_settings(spec, federation)
    return errors


def _pod_names(federation: Federation, groups: Mapping[str, Sequence[str]]) -> list[str]:
    errors = []
    for pod in federation.pods:
        where = f"cluster_federation.pods.{pod.name}"
        if not NAME_RE.match(pod.name):
            errors.append(
                f"{where}: '{pod.name}' is not a valid Slurm ClusterName (the pod's cluster); use lowercase "
                "letters, digits and '_', starting with a letter, at most 40 characters"
            )
        if pod.group not in groups:
            errors.append(f"{where}: inventory group '{pod.group}' does not exist; create it with the pod's hosts")
        elif pod.group in (*SHARED_GROUPS, *POD_ROLE_GROUPS):
            errors.append(f"{where}: group '{pod.group}' is a role group; give the pod a group of its own")
    groups_seen: dict[str, str] = {}
    for pod in federation.pods:
        if pod.group in groups_seen:
            errors.append(
                f"cluster_federation.pods: pods '{groups_seen[pod.group]}' and '{pod.name}' share group '{pod.group}'"
            )
        groups_seen.setdefault(pod.group, pod.name)
    if federation.name in {pod.name for pod in federation.pods}:
        errors.append(
            f"cluster_federation.name: '{federation.name}' is also a pod's name; name the federation differently"
        )
    return errors


def _pod_membership(federation: Federation, groups: Mapping[str, Sequence[str]]) -> list[str]:
    errors = []
    owner: dict[str, list[str]] = {}
    for pod in federation.pods:
        for host in groups.get(pod.group, ()):
            owner.setdefault(host, []).append(pod.name)
    shared: dict[tuple[str, ...], list[str]] = {}
    for host, pods in owner.items():
        if len(pods) > 1:
            shared.setdefault(tuple(pods), []).append(host)
    for names, hosts in sorted(shared.items()):
        # (one line per set of pods, the hosts folded: a group put in two pods is one mistake, not 640)
        errors.append(
            f"inventory: {'host' if len(hosts) == 1 else 'hosts'} {fold(hosts)} in pods {', '.join(names)}; a node "
            "belongs to one cluster, keep it in one"
        )
    for role in POD_ROLE_GROUPS:
        outside = sorted(host for host in groups.get(role, ()) if host not in owner)
        if outside:
            errors.append(
                f"inventory: {role} hosts {fold(outside)} are in no pod; add each to one pod group "
                f"({', '.join(p.group for p in federation.pods)})"
            )
    for pod in federation.pods:
        members = set(groups.get(pod.group, ()))
        for role in ("controllers", "compute"):
            if pod.group in groups and not members & set(groups.get(role, ())):
                errors.append(f"inventory: pod '{pod.name}' has no {role} hosts; every pod is a whole Slurm cluster")
    return errors


def _pod_settings(spec: Mapping[str, Any], federation: Federation) -> list[str]:
    errors = []
    dbd_text = str(spec.get("slurm_release") or DEFAULT_RELEASE)
    vips: dict[str, str] = {}
    for pod in federation.pods:
        where = f"cluster_federation.pods.{pod.name}"
        release_text = str(pod.settings(spec).get("slurm_release") or dbd_text)
        if release_text in KNOWN_RELEASES and dbd_text in KNOWN_RELEASES:
            dbd, release = Release.parse(dbd_text), Release.parse(release_text)
            if not accepts(dbd, release):
                errors.append(
                    f"{where}.slurm_release: {release} is outside the window of the shared slurmdbd "
                    f"({dbd}, cluster_slurm_release), which accepts itself and the {compatibility_window(dbd)} "
                    "releases before it; slurmdbd is upgraded first, then each pod within that window"
                )
        settings = pod.overrides.get("slurm_config") or {}
        if isinstance(settings, Mapping):
            errors += [
                f"{where}.slurm_config.{key}: every pod uses the one slurmdbd of the 'dbd' group; remove it"
                for key in settings
                if key in SHARED_SETTINGS
            ]
        vip = str(pod.overrides.get("controller_vip") or "")
        if vip and vip in vips:
            errors.append(f"{where}.controller_vip: {vip} is also pod '{vips[vip]}''s; each pod needs its own VIP")
        vips.setdefault(vip, pod.name)
    return errors


def pod_names(spec: Mapping[str, Any]) -> list[str]:
    """The pods' names (their ClusterNames), or [] for one cluster."""
    federation, _ = read_federation(spec)
    return [pod.name for pod in federation.pods] if federation else []
