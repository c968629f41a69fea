"""Secrets in configuration files: what Slurm's parser reads back of slurm_conf_value's output, and what each file
refuses to carry (plugins/module_utils/secret_text.py). The accounting role's scenario runs the real slurmdbd on a
password with '#', a backslash and a space."""

from __future__ import annotations

import re

from ansible_collections.gpucluster.cluster.plugins.module_utils import secret_text
from hypothesis import given
from hypothesis import strategies as st

# Slurm's reading of one line of a configuration file (src/common/parse_config.c, 22.05 to 26.05): comments
# (an unescaped '#'), escapes (a backslash keeps the next character), then key=value, the value either between
# double quotes (whitespace allowed, no double quote) or unquoted without whitespace.
_KEY_VALUE = re.compile(r'^\s*([A-Za-z0-9_.]+)\s*([-*+/]?)=\s*(("([^"]*)")|([^\s]+))(\s|$)')


def _slurm_reads(line: str) -> str | None:
    backslashes, cut = 0, len(line)
    for index, char in enumerate(line):
        if char == "#" and backslashes % 2 == 0:
            cut = index
            break
        backslashes = backslashes + 1 if char == "\\" else 0
    line = re.sub(r"\\(.)", r"\1", line[:cut])
    found = _KEY_VALUE.match(line)
    if not found:
        return None
    return found.group(5) if found.group(5) is not None else found.group(6)


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=40))
def test_slurm_reads_back_every_password_it_is_given(password: str) -> None:
    if secret_text.slurm_conf_secret_errors("p", password, "f"):
        return
    line = f"StoragePass={secret_text.slurm_conf_value(password)}"
    if password != password.strip():
        # (surrounding whitespace is kept only between quotes, which the value gets for any whitespace)
        assert line.startswith('StoragePass="')
    assert _slurm_reads(line) == password, line


def test_a_plain_password_is_written_as_it_is() -> None:
    assert secret_text.slurm_conf_value("Abc123xyz789") == "Abc123xyz789"
    assert secret_text.slurm_conf_value("pa#ss wo\\rd") == '"pa\\#ss wo\\\\rd"'


def test_what_slurmdbd_conf_cannot_carry_is_named_without_the_value() -> None:
    for password in ('a"b c', '"abc', "ab\ncd", "ab\tcd"):
        found = secret_text.slurm_conf_secret_errors("accounting_db_password", password, "slurmdbd.conf")
        assert len(found) == 1 and found[0].startswith("accounting_db_password holds"), found
        assert password not in found[0]
    assert secret_text.slurm_conf_secret_errors("x", 'a"b', "f") == []


def test_option_files_and_keepalived_refuse_their_own_syntax() -> None:
    found = secret_text.plain_secret_errors("galera_sst_password", "ab#c d'e", "my.cnf", secret_text.OPTION_FILE)
    assert found and "'#'" in found[0] and "whitespace" in found[0] and "single quote" in found[0]
    assert secret_text.plain_secret_errors("x", "Ab1+/=:-_.", "my.cnf", secret_text.OPTION_FILE) == []
    assert "'!'" in secret_text.plain_secret_errors("x", "vr!p", "keepalived.conf", secret_text.KEEPALIVED)[0]


def test_each_role_refuses_the_secret_its_file_cannot_carry() -> None:
    """Wired into the roles' tier-1 checks: slurmdbd.conf's password, Galera's SST password, the VRRP password and
    mysqld_exporter's password, each refused before any host is touched."""
    from ansible_collections.gpucluster.cluster.plugins.filter.accounting import accounting_settings_errors
    from ansible_collections.gpucluster.cluster.plugins.filter.monitoring import monitoring_settings_errors
    from ansible_collections.gpucluster.cluster.plugins.module_utils.galera import settings_errors
    from ansible_collections.gpucluster.cluster.plugins.module_utils.ha import login_pool_errors

    assert accounting_settings_errors({}, {}, db_password="pa#ss word\\0123") == []
    assert "double quote" in accounting_settings_errors({}, {}, db_password='pa"ss word 0123')[0]
    assert "shorter than 12" in accounting_settings_errors({}, {}, db_password="short")[0]
    galera = ["db01", "db02", "db03"]
    assert "'#'" in settings_errors(galera, [], {"sst_method": "mariabackup", "sst_password": "sst#secret-01234"})[0]
    logins = {"login1": "10.0.0.21", "login2": "10.0.0.22"}
    pool = {"vip": "10.0.0.20", "cidr_netmask": 24, "virtual_router_id": 51, "balance": "source", "ssh_port": 22}
    assert "'!'" in login_pool_errors(list(logins), logins, {**pool, "vrrp_password": "vr!p"})[0]
    assert login_pool_errors(list(logins), logins, {**pool, "vrrp_password": "Vr+p/123"}) == []
    assert monitoring_settings_errors({}, {}, {}, "exporter#password-0123")[0].startswith(
        "monitoring_mysqld_exporter_db_password holds '#'"
    )
    assert monitoring_settings_errors({}, {}, {}, "") == []
    # a deployment's validation requires it where the dbd group has databases to watch (None: it has none)
    assert "not set" in monitoring_settings_errors({}, {}, {}, "", deploying=True)[0]
    assert monitoring_settings_errors({}, {}, {}, None, deploying=True) == []
    # a run that skips the monitoring role (the labs: --skip-tags monitoring) needs neither
    assert monitoring_settings_errors({}, {}, {}, "", deploying=True, tags=[["all"], ["monitoring"]]) == []
    assert monitoring_settings_errors({}, {}, {}, "", deploying=True, tags=[["slurm"], []]) == []
    grafana = monitoring_settings_errors({}, {}, {}, None, deploying=True, grafana_password="")
    assert "monitoring_grafana_admin_password not set" in grafana[0]
