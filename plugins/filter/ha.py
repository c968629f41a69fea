"""Filters for the HA settings: the controller pair under Pacemaker, the login pool."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible.module_utils.parsing.convert_bool import boolean
from ansible_collections.gpucluster.cluster.plugins.filter.cluster import (
    cluster_pod,
    cluster_pod_hosts,
    cluster_pod_setting,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.ha import (
    fence_address_errors,
    fence_packages,
    fencing_errors,
    login_pool_errors,
    pair_errors,
    pair_settings_errors,
    shared_state_error,
    shared_state_marker,
    slurm_vip_errors,
    stonith_changes,
    stonith_create_options,
    stonith_parameters,
    vip_errors,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.live_state import slurped_text


def pacemaker_errors(
    controllers: Sequence[str], addresses: Mapping[str, str], settings: Mapping[str, Any]
) -> list[str]:
    """Everything wrong with the pair, the VIP and fencing: settings {vip, vip_variable, cidr_netmask,
    fence_devices, lab_without_fencing, slurm_vip, slurm_vip_variable} (vip_variable: the variable the VIP came
    from, default pacemaker_vip; slurm_vip: the SlurmctldAddr of the pair's cluster, from the variable named by
    slurm_vip_variable)."""
    errors = pair_errors(list(controllers))
    vip = str(settings.get("vip") or "")
    errors += vip_errors(
        vip,
        settings.get("cidr_netmask", 24),
        addresses,
        str(settings.get("vip_variable") or "pacemaker_vip"),
        netmask_variable="pacemaker_vip_cidr_netmask",
    )
    errors += slurm_vip_errors(
        vip, str(settings.get("slurm_vip") or ""), str(settings.get("slurm_vip_variable") or "cluster_controller_vip")
    )
    # `-e pacemaker_lab_without_fencing=false` arrives as the string "false": read it as Ansible reads booleans
    # (bool("false") is True and would turn fencing off).
    try:
        lab_without_fencing = boolean(settings.get("lab_without_fencing", False), strict=True)
    except TypeError:
        return [
            *errors,
            f"pacemaker_lab_without_fencing is {settings.get('lab_without_fencing')!r}; set it to true or false",
        ]
    errors += fencing_errors(list(controllers), settings.get("fence_devices") or {}, lab_without_fencing)
    return errors


def pacemaker_pairs_errors(
    leaders: Sequence[str],
    groups: Mapping[str, Sequence[str]],
    hostvars: Mapping[str, Any],
    federation: Mapping[str, Any] | None,
    addresses: Mapping[str, str],
    *,
    shared: Mapping[str, Any],
) -> list[str]:
    """Everything wrong with each controller pair (one per pod in a federation; ``leaders``: each pair's first
    host), with the settings its hosts see: a host's own pacemaker_* value, else its pod's controller VIP (a pod's
    pair takes it unless set in the pod's group_vars), else ``shared`` (the role's values: vip, cidr_netmask,
    fence_devices, lab_without_fencing). The controller VIP slurm.conf names must be the pair's VIP."""
    errors: list[str] = []
    controllers = list(groups.get("controllers") or [])
    for leader in leaders:
        own = hostvars[leader]
        group_names = list(own.get("group_names") or [])
        pod = cluster_pod(federation, group_names)
        pod_vip = cluster_pod_setting(federation, group_names, "controller_vip")
        pod_variable = f"cluster_federation.pods.{pod}.controller_vip"
        set_here = "pacemaker_vip" in own
        pair = cluster_pod_hosts(controllers, groups, federation, leader)
        # The VIP is checked against its own pair's addresses (pods may sit on networks of their own), the devices
        # of other pods' controllers left to their pairs (one pacemaker_fence_devices may hold every pod's).
        others = set(controllers) - set(pair)
        devices = own.get("pacemaker_fence_devices", shared.get("fence_devices") or {})
        settings = {
            "vip": own.get("pacemaker_vip") if set_here else (pod_vip if pod else shared.get("vip", "")),
            "vip_variable": "pacemaker_vip" if not pod or set_here else pod_variable,
            "cidr_netmask": own.get("pacemaker_vip_cidr_netmask", shared.get("cidr_netmask", 24)),
            "fence_devices": {host: device for host, device in dict(devices).items() if host not in others},
            "lab_without_fencing": shared.get("lab_without_fencing", False),
            "slurm_vip": pod_vip if pod else own.get("cluster_controller_vip", ""),
            "slurm_vip_variable": pod_variable if pod else "cluster_controller_vip",
        }
        errors += pacemaker_errors(pair, {host: addresses[host] for host in pair if host in addresses}, settings)
        errors += fence_address_errors(
            settings["fence_devices"], str(settings["vip"] or ""), settings["vip_variable"], addresses
        )
        slurm_addresses = own.get("cluster_controller_addresses") or {}
        vip = str(settings["vip"] or "")
        errors += [
            f"{settings['vip_variable']} {vip} is {host}'s own address (cluster_controller_addresses): Pacemaker "
            f"would raise it on the controller in charge while {host} holds it - two hosts answering on one address. "
            "Pick a free address of the controllers' network"
            for host in pair
            if vip
            and isinstance(slurm_addresses, Mapping)
            and str(slurm_addresses.get(host)) == vip
            and str(addresses.get(host)) != vip  # (vip_errors names it already)
        ]
    return errors


def pacemaker_shared_marker(controllers: Sequence[str]) -> str:
    """The text the pair's first controller writes into StateSaveLocation/.gpucluster-shared (``controllers``: the
    pair, the pod's in a federation)."""
    return shared_state_marker([str(host) for host in controllers])


def pacemaker_shared_state_error(slurped: Any, host: str, controllers: Sequence[str], state_save_location: str) -> str:
    """The refusal of a StateSaveLocation that ``host`` does not share with its pair, or shares beyond it; "" where it
    sees its own pair's marker. ``slurped``: StateSaveLocation/.gpucluster-shared as ansible.builtin.slurp read it
    (failed where there is no such file)."""
    read = isinstance(slurped, Mapping) and not slurped.get("failed") and "content" in slurped
    marker = slurped_text(str(slurped.get("content"))) if read else None
    return shared_state_error(str(host), [str(name) for name in controllers], str(state_save_location), marker)


def pacemaker_stonith_options(host: str, device: Mapping[str, Any], password_dir: str) -> list[str]:
    """`key=value` options to create `fence-<host>` with: the BMC's address and user, and a `password_script`
    that reads the password from its root-only file under ``password_dir`` (never the password itself)."""
    return stonith_create_options(host, device, password_dir)


def pacemaker_stonith_update(cib_xml: str, host: str, device: Mapping[str, Any], password_dir: str) -> list[str]:
    """`key=value` arguments for `pcs stonith update fence-<host>`: the attributes the CIB's device lacks or holds
    another value of, `key=` for one it must not hold (a password written there before); empty when it matches."""
    wanted = stonith_parameters(host, device, password_dir)
    return [f"{key}={wanted[key]}" for key in stonith_changes(cib_xml, wanted)]


def pacemaker_fence_packages(devices: Mapping[str, Any], per_agent: Any) -> list[str]:
    """The packages of the declared fence agents (fence-agents-<name> where the distribution splits them)."""
    return fence_packages(devices if isinstance(devices, Mapping) else {}, boolean(per_agent, strict=False))


def pacemaker_settings_errors(settings: Mapping[str, Any]) -> list[str]:
    """The controller pair's timing (token_ms, monitor_interval, wait_timeout): a Corosync token a busy host can live
    with, a positive monitor interval, a wait of 1 s or more."""
    return pair_settings_errors(settings)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "pacemaker_errors": pacemaker_errors,
            "pacemaker_pairs_errors": pacemaker_pairs_errors,
            "pacemaker_settings_errors": pacemaker_settings_errors,
            "login_pool_errors": login_pool_errors,
            "pacemaker_stonith_options": pacemaker_stonith_options,
            "pacemaker_stonith_update": pacemaker_stonith_update,
            "pacemaker_fence_packages": pacemaker_fence_packages,
            "pacemaker_shared_marker": pacemaker_shared_marker,
            "pacemaker_shared_state_error": pacemaker_shared_state_error,
        }
