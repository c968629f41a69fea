"""Pacemaker settings of the controller pair: VIP and fencing checks."""

from __future__ import annotations

import base64

from ansible_collections.gpucluster.cluster.plugins.filter.ha import (
    login_pool_errors,
    pacemaker_errors,
    pacemaker_shared_marker,
    pacemaker_shared_state_error,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.ha import (
    fence_packages,
    fencing_errors,
    pair_errors,
    pair_settings_errors,
    vip_errors,
)

ADDRESSES = {"ctl1": "10.0.0.11", "ctl2": "10.0.0.12"}
IPMI = {"agent": "fence_ipmilan", "ip": "10.1.0.11", "username": "admin", "password": "secret"}
IPMI2 = {**IPMI, "ip": "10.1.0.12"}


def test_vip_in_the_controllers_network_passes() -> None:
    assert vip_errors("10.0.0.10", 24, ADDRESSES) == []


def test_vip_outside_network_or_taken_or_malformed() -> None:
    assert "not in ctl1's network" in vip_errors("10.9.0.10", 24, ADDRESSES)[0]
    assert "ctl2's own address" in vip_errors("10.0.0.12", 24, ADDRESSES)[0]
    assert "not an IP address" in vip_errors("ctl-vip", 24, ADDRESSES)[0]


def test_a_vip_no_host_can_hold_is_refused() -> None:
    """A network's own or broadcast address, loopback, multicast and link-local addresses: IPaddr2 or keepalived
    would add them, and no client would reach slurmctld or a login node there."""
    for vip, prefix, why in [
        ("10.0.0.0", 24, "the network address of 10.0.0.0/24"),
        ("10.0.0.255", 24, "the broadcast address of 10.0.0.0/24"),
        ("10.0.0.0", 16, "the network address of 10.0.0.0/16"),
        ("127.0.0.10", 8, "loopback"),
        ("224.0.0.18", 24, "multicast"),
        ("0.0.0.0", 24, "unspecified"),
        ("169.254.0.10", 16, "link-local"),
        ("fe80::10", 64, "link-local"),
    ]:
        assert [why in error and "pick a free unicast address" in error for error in vip_errors(vip, prefix, {})] == [
            True
        ], vip
    # a /31 or /32 has no network or broadcast address; 10.0.0.255 is a host of a /16
    assert vip_errors("10.0.0.0", 31, {}) == vip_errors("10.0.0.255", 16, ADDRESSES) == []


def test_a_vip_prefix_is_a_prefix_length_of_its_family() -> None:
    assert vip_errors("10.0.0.10", 33, ADDRESSES) == [
        "pacemaker_vip_cidr_netmask 33 is not a prefix length of pacemaker_vip 10.0.0.10 (1-32); give the bits of the "
        "controllers' network, e.g. 24"
    ]
    assert "(1-32)" in vip_errors("10.0.0.10", "24 ", ADDRESSES)[0]
    assert vip_errors("2001:db8::10", 64, {}) == []


def test_two_controllers_fenced_through_one_bmc_are_refused() -> None:
    """Fencing the lost controller would power off the one taking over; a hypervisor (fence_virsh) is shared by
    design - Pacemaker names the machine to it."""
    assert fencing_errors(["ctl1", "ctl2"], {"ctl1": IPMI, "ctl2": dict(IPMI)}, False) == [
        "ctl1, ctl2: their fence devices are the same (fence_ipmilan at 10.1.0.11): fencing one would power off the "
        "other, which should take over; give each controller its own BMC address"
    ]
    virsh = {"agent": "fence_virsh", "ip": "10.1.0.250", "username": "root", "password": "secret"}
    assert fencing_errors(["ctl1", "ctl2"], {"ctl1": virsh, "ctl2": virsh}, False) == []


def test_fence_options_are_the_agents_key_value() -> None:
    devices = {
        "ctl1": {**IPMI, "options": ["lanplus=1"]},
        "ctl2": {**IPMI, "ip": "10.1.0.12", "options": ["lanplus 1"]},
    }
    assert fencing_errors(["ctl1", "ctl2"], devices, False) == [
        "ctl2: fence device options[0] (lanplus...) not the agent's key=value (e.g. lanplus=1, ssl_insecure=1)"
    ]
    # a misspelled option may hold the BMC password: the message shows its first word only
    devices["ctl2"]["options"] = ["passwd s3cret-bmc"]
    assert "s3cret" not in " ".join(fencing_errors(["ctl1", "ctl2"], devices, False))
    devices["ctl2"]["options"] = "lanplus=1"
    assert "is not a list of key=value" in fencing_errors(["ctl1", "ctl2"], devices, False)[0]


def test_every_controller_needs_a_complete_fence_device() -> None:
    devices = {"ctl1": IPMI, "ctl2": {"agent": "fence_redfish", "ip": "10.1.0.12", "username": "admin"}}
    assert fencing_errors(["ctl1", "ctl2"], devices, False) == ["ctl2: fence_redfish device lacks password"]
    assert "ctl2: no fence device" in fencing_errors(["ctl1", "ctl2"], {"ctl1": IPMI}, False)[0]
    wrong = {"ctl1": IPMI, "ctl2": {**IPMI, "agent": "fence_xvm"}}
    assert "'fence_xvm' is not one of" in fencing_errors(["ctl1", "ctl2"], wrong, False)[0]
    bad_ip = {"ctl1": IPMI, "ctl2": {**IPMI, "ip": "bmc-2"}}
    assert "not an IP address" in fencing_errors(["ctl1", "ctl2"], bad_ip, False)[0]
    stray = {"ctl1": IPMI, "ctl2": {**IPMI, "ip": "10.1.0.12"}, "ctl3": IPMI}
    assert fencing_errors(["ctl1", "ctl2"], stray, False) == [
        "pacemaker_fence_devices names ctl3, which is not a controller"
    ]


def test_only_the_explicit_lab_setting_turns_fencing_off() -> None:
    assert fencing_errors(["ctl1", "ctl2"], {}, True) == []
    assert len(fencing_errors(["ctl1", "ctl2"], {}, False)) == 2


def test_pair_is_two_controllers() -> None:
    assert pair_errors(["ctl1", "ctl2"]) == []
    assert "exactly 2" in pair_errors(["ctl1"])[0]


def test_filter_gathers_all_findings() -> None:
    settings = {"vip": "10.0.0.10", "cidr_netmask": 24, "fence_devices": {"ctl1": IPMI, "ctl2": IPMI2}}
    assert pacemaker_errors(["ctl1", "ctl2"], ADDRESSES, settings) == []
    assert len(pacemaker_errors(["ctl1"], {"ctl1": "10.0.0.11"}, {"vip": "x"})) == 3


def test_the_vip_slurm_conf_names_is_the_pairs_vip_or_none() -> None:
    settings = {"vip": "10.0.0.10", "fence_devices": {"ctl1": IPMI, "ctl2": IPMI2}}
    assert pacemaker_errors(["ctl1", "ctl2"], ADDRESSES, {**settings, "slurm_vip": "10.0.0.10"}) == []
    assert pacemaker_errors(["ctl1", "ctl2"], ADDRESSES, {**settings, "slurm_vip": ""}) == []
    pod = {**settings, "slurm_vip": "10.0.0.20", "slurm_vip_variable": "cluster_federation.pods.pod2.controller_vip"}
    assert pacemaker_errors(["ctl1", "ctl2"], ADDRESSES, pod) == [
        "cluster_federation.pods.pod2.controller_vip 10.0.0.20 is not the pair's pacemaker_vip 10.0.0.10: "
        "slurm.conf would send every client to an address that no controller holds; set "
        "cluster_federation.pods.pod2.controller_vip to 10.0.0.10"
    ]
    assert (
        "cluster_controller_vip 10.0.0.20 is not"
        in pacemaker_errors(["ctl1", "ctl2"], ADDRESSES, {**settings, "slurm_vip": "10.0.0.20"})[0]
    )


def test_lab_switch_from_the_command_line_is_read_as_a_boolean() -> None:
    """`-e pacemaker_lab_without_fencing=false` is the string "false": fencing stays required."""
    settings = {"vip": "10.0.0.10", "fence_devices": {}}
    assert len(pacemaker_errors(["ctl1", "ctl2"], ADDRESSES, {**settings, "lab_without_fencing": "false"})) == 2
    assert pacemaker_errors(["ctl1", "ctl2"], ADDRESSES, {**settings, "lab_without_fencing": "yes"}) == []
    refused = pacemaker_errors(["ctl1", "ctl2"], ADDRESSES, {**settings, "lab_without_fencing": "maybe"})
    assert refused == ["pacemaker_lab_without_fencing is 'maybe'; set it to true or false"]


LOGINS = {"login1": "10.0.0.21", "login2": "10.0.0.22"}
POOL = {
    "vip": "10.0.0.20",
    "cidr_netmask": 24,
    "virtual_router_id": 51,
    "vrrp_password": "s3cret",
    "balance": "source",
    "ssh_port": 22,
    "other_vips": {"pacemaker_vip": "10.0.0.10"},
}


def test_login_pool_of_two_with_a_free_vip_passes() -> None:
    assert login_pool_errors(list(LOGINS), LOGINS, POOL) == []
    assert login_pool_errors(list(LOGINS), LOGINS, {**POOL, "virtual_router_id": "51", "ssh_port": "2222"}) == []


def test_login_pool_findings_name_the_variable() -> None:
    assert "has 1 host(s)" in login_pool_errors(["login1"], {"login1": "10.0.0.21"}, POOL)[0]
    assert login_pool_errors(list(LOGINS), LOGINS, {**POOL, "vip": "10.0.0.22"}) == [
        "login_pool_vip 10.0.0.22 is login2's own address; pick a free address"
    ]
    assert "not in login1's network" in login_pool_errors(list(LOGINS), LOGINS, {**POOL, "vip": "10.9.0.20"})[0]
    assert login_pool_errors(list(LOGINS), LOGINS, {**POOL, "vip": "10.0.0.10"}) == [
        "login_pool_vip 10.0.0.10 is also pacemaker_vip; each VIP needs its own address"
    ]
    assert "not a VRRP router id" in login_pool_errors(list(LOGINS), LOGINS, {**POOL, "virtual_router_id": 256})[0]
    assert "keeps only 8" in login_pool_errors(list(LOGINS), LOGINS, {**POOL, "vrrp_password": "123456789"})[0]
    (empty,) = login_pool_errors(list(LOGINS), LOGINS, {**POOL, "vrrp_password": ""})
    assert empty.startswith("login_pool_vrrp_password is empty: without VRRP authentication any host")
    assert "'first' is not one of" in login_pool_errors(list(LOGINS), LOGINS, {**POOL, "balance": "first"})[0]
    assert "is not a TCP port" in login_pool_errors(list(LOGINS), LOGINS, {**POOL, "ssh_port": 0})[0]


def test_fencing_may_be_off_only_where_no_fence_device_is_declared() -> None:
    from ansible_collections.gpucluster.cluster.plugins.module_utils.ha import fencing_errors

    assert fencing_errors(["ctl01", "ctl02"], {}, lab_without_fencing=True) == []
    device = {"agent": "fence_ipmilan", "ip": "10.0.9.1", "username": "admin", "password": "x"}
    (error,) = fencing_errors(["ctl01", "ctl02"], {"ctl01": device}, lab_without_fencing=True)
    assert error.startswith(
        "pacemaker_lab_without_fencing is true, but pacemaker_fence_devices declares devices for ctl01"
    )


CIB = """<instance_attributes id="fence-ctl01-instance_attributes">
  <nvpair id="fence-ctl01-instance_attributes-ip" name="ip" value="10.0.9.1"/>
  <nvpair id="fence-ctl01-instance_attributes-username" name="username" value="admin"/>
  <nvpair id="fence-ctl01-instance_attributes-password" name="password" value="old&amp;secret"/>
  <nvpair id="fence-ctl01-instance_attributes-pcmk_host_list" name="pcmk_host_list" value="ctl01"/>
  <nvpair id="fence-ctl01-instance_attributes-lanplus" name="lanplus" value="1"/>
</instance_attributes>"""


def test_a_changed_fence_device_parameter_reaches_the_cluster() -> None:
    from ansible_collections.gpucluster.cluster.plugins.filter.ha import pacemaker_stonith_update

    device = {
        "agent": "fence_ipmilan",
        "ip": "10.0.9.1",
        "username": "admin",
        "password": "old&secret",
        "options": ["lanplus=1"],
    }
    script = "password_script=/bin/cat /etc/gpucluster/fence/ctl01"
    # a device an older release made holds the password itself: it is removed, the script takes its place
    assert pacemaker_stonith_update(CIB, "ctl01", device, "/etc/gpucluster/fence") == ["password=", script]
    current = CIB.replace(
        '<nvpair id="fence-ctl01-instance_attributes-password" name="password" value="old&amp;secret"/>',
        '<nvpair id="fence-ctl01-instance_attributes-password_script" name="password_script" '
        'value="/bin/cat /etc/gpucluster/fence/ctl01"/>',
    )
    assert pacemaker_stonith_update(current, "ctl01", device, "/etc/gpucluster/fence/") == []
    # a rotated password is a rewritten file: the device stays as it is; a moved BMC is updated
    moved = {**device, "ip": "10.0.9.7", "password": "new"}
    assert pacemaker_stonith_update(current, "ctl01", moved, "/etc/gpucluster/fence") == ["ip=10.0.9.7"]
    # a device the CIB does not hold (cibadmin found nothing): every attribute is set, the password never
    assert len(pacemaker_stonith_update("", "ctl01", device, "/etc/gpucluster/fence")) == 5


def test_the_bmc_password_is_never_a_fence_device_attribute() -> None:
    from ansible_collections.gpucluster.cluster.plugins.filter.ha import pacemaker_stonith_options

    device = {"agent": "fence_ipmilan", "ip": "10.0.9.1", "username": "admin", "password": "s3cret", "options": []}
    options = pacemaker_stonith_options("ctl-01", device, "/etc/gpucluster/fence")
    assert options == [
        "ip=10.0.9.1",
        "username=admin",
        "password_script=/bin/cat /etc/gpucluster/fence/ctl-01",
        "pcmk_host_list=ctl-01",
    ]
    assert not any("s3cret" in option for option in options)
    # a device without a password (an SSH key in its options) gets no script
    keyed = {**device, "password": "", "options": ["identity_file=/root/.ssh/fence"]}
    assert pacemaker_stonith_options("ctl-01", keyed, "/etc/gpucluster/fence") == [
        "ip=10.0.9.1",
        "username=admin",
        "pcmk_host_list=ctl-01",
        "identity_file=/root/.ssh/fence",
    ]
    (error,) = fencing_errors(["ctl-01"], {"ctl-01": {**device, "options": ["password=x"]}}, lab_without_fencing=False)
    assert error.startswith("ctl-01: fence device option password is the role's: give the BMC password in `password`")


def test_fence_packages_follow_the_declared_agents() -> None:
    """Debian 13 and RHEL ship one package per agent (Debian 13's fence-agents pulls about 600 packages); Debian 12
    one fence-agents; no device, no package."""
    virsh = {"agent": "fence_virsh", "ip": "10.0.0.1", "username": "root", "password": "x"}
    devices = {"ctl01": IPMI, "ctl02": {**IPMI, "agent": "fence_redfish"}, "ctl03": virsh}
    assert fence_packages(devices, per_agent=True) == [
        "fence-agents-ipmilan",
        "fence-agents-redfish",
        "fence-agents-virsh",
    ]
    assert fence_packages({"ctl01": IPMI, "ctl02": IPMI}, per_agent=True) == ["fence-agents-ipmilan"]
    assert fence_packages(devices, per_agent=False) == ["fence-agents"]
    assert fence_packages({}, per_agent=True) == []
    assert fence_packages({"ctl01": {**IPMI, "agent": "fence_unknown"}}, per_agent=True) == []


def test_fence_virsh_needs_its_host_and_login() -> None:
    device = {"agent": "fence_virsh", "ip": "10.0.0.1", "username": "root", "password": "x"}
    assert fencing_errors(["ctl01"], {"ctl01": device}, lab_without_fencing=False) == []
    (error,) = fencing_errors(["ctl01"], {"ctl01": {**device, "password": ""}}, lab_without_fencing=False)
    assert error == "ctl01: fence_virsh device lacks password"


def test_the_login_pools_keepalived_and_haproxy_settings() -> None:
    fine = {**POOL, "advert_interval": 1, "metrics_port": 8405}
    assert login_pool_errors(list(LOGINS), LOGINS, fine) == []
    assert login_pool_errors(list(LOGINS), LOGINS, {**fine, "advert_interval": 0, "metrics_port": 22}) == [
        "login_pool_advert_interval 0 is not a VRRP advertisement interval; keepalived takes 1-255 seconds",
        "login_pool_metrics_port 22 is login_pool_ssh_port too; HAProxy cannot listen for both there",
    ]


def test_the_pairs_timing_leaves_no_fencing_storm_and_no_blind_monitor() -> None:
    assert pair_settings_errors({"token_ms": 3000, "monitor_interval": "10s", "wait_timeout": 180}) == []
    assert pair_settings_errors({"token_ms": "1000", "monitor_interval": "1min"}) == []
    (token, monitor) = pair_settings_errors({"token_ms": 50, "monitor_interval": "0"})
    assert token.startswith("pacemaker_token_ms 50 is not a Corosync token of 500-600000 ms"), token
    assert monitor.startswith("pacemaker_monitor_interval '0' is not a positive interval"), monitor


def test_the_login_pools_ports_and_times_are_ones_its_hosts_and_haproxy_take() -> None:
    """HAProxy's metrics port on the node exporter's (one of the two would not start on every login node), and
    times HAProxy's configuration check refuses (it stopped the run on the login nodes)."""
    taken = {**POOL, "metrics_port": 9100, "other_ports": {"monitoring_node_exporter_port": 9100}}
    (clash,) = login_pool_errors(list(LOGINS), LOGINS, taken)
    assert clash.startswith("login_pool_metrics_port 9100 is also monitoring_node_exporter_port on the login nodes")
    times = {**POOL, "session_timeout": "12 hours", "check_interval": "2s"}
    (time,) = login_pool_errors(list(LOGINS), LOGINS, times)
    assert time.startswith("login_pool_session_timeout '12 hours' is not a time HAProxy reads")
    fine = {**POOL, "session_timeout": "12h", "check_interval": "500ms", "other_ports": {"x": 9100}}
    assert login_pool_errors(list(LOGINS), LOGINS, fine) == []


def test_the_pairs_state_directory_is_its_own_and_only_its_own() -> None:
    """The peer reads the marker its pair's first controller wrote into StateSaveLocation: missing, the directory is
    not shared by the pair; written for other controllers, it is shared beyond the pair (two pods of a federation
    on one directory), and each slurmctld would write over the other's state."""
    pair = ["p1ctl1", "p1ctl2"]
    marker = pacemaker_shared_marker(pair)
    assert marker == "StateSaveLocation shared by p1ctl1 and p1ctl2\n"  # the text pairs deployed before carry

    def read(text: str) -> dict[str, str]:
        return {"content": base64.b64encode(text.encode()).decode(), "encoding": "base64"}

    assert pacemaker_shared_state_error(read(marker), "p1ctl2", pair, "/shared/ctld") == ""
    missing = pacemaker_shared_state_error({"failed": True, "msg": "file not found"}, "p1ctl2", pair, "/shared/ctld")
    assert missing.startswith("p1ctl2 does not see /shared/ctld/.gpucluster-shared written on p1ctl1"), missing
    other = pacemaker_shared_marker(["p2ctl1", "p2ctl2"])
    shared = pacemaker_shared_state_error(read(other), "p1ctl2", pair, "/shared/ctld")
    assert shared.startswith(
        "p1ctl2: /shared/ctld/.gpucluster-shared says 'StateSaveLocation shared by p2ctl1 and p2ctl2', not p1ctl1 "
        "and p1ctl2: this pair's StateSaveLocation is the directory of other controllers too"
    ), shared
    assert "slurm_config.StateSaveLocation" in shared


def test_interfaces_connections_and_the_fence_password_directory_are_ones_the_hosts_take() -> None:
    """keepalived's and IPaddr2's interface, HAProxy's maxconn and the fence agents' password directory: a value
    they cannot read leaves a VIP down, a pool that takes no user, passwords where no agent looks."""
    fine = {**POOL, "max_connections": 4000, "interface": "bond0"}
    assert login_pool_errors(list(LOGINS), LOGINS, fine) == []
    (none, interface) = login_pool_errors(
        list(LOGINS), LOGINS, {**fine, "max_connections": 0, "interface": "eth0 eth1"}
    )
    assert none.startswith("login_pool_max_connections 0 is not a number of sessions of 1 or more")
    assert interface.startswith("login_pool_interface 'eth0 eth1' is not a network interface's name")
    good = {"token_ms": 3000, "monitor_interval": "10s", "vip_nic": "eth0:vip", "fence_password_dir": "/etc/x/fence"}
    assert pair_settings_errors(good) == []
    (nic, directory) = pair_settings_errors({**good, "vip_nic": "e" * 16, "fence_password_dir": "fence/"})
    assert nic.startswith("pacemaker_vip_nic 'eeeeeeeeeeeeeeee' is not a network interface's name")
    assert directory.startswith("pacemaker_fence_password_dir 'fence/' is not an absolute directory")
