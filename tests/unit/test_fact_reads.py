"""Facts are read as ``ansible_facts['...']`` only: their top-level copies (``ansible_os_family``) are deprecated by
ansible-core and off in the project's ansible.cfg and the labs (``inject_facts_as_vars``), where a role reading one
fails. This finds such a read without a lab, in the files the opt-in scenarios alone would run too."""

from __future__ import annotations

import re
from pathlib import Path

from ansible.module_utils.facts import default_collectors

ROOT = Path(__file__).resolve().parents[2]
# Collector names that are not facts of their own, or that name a connection variable (ansible_user).
NOT_FACTS = {"user", "hardware", "network", "virtual", "platform", "local", "facter", "ohai"}
# Facts a collector sets without listing them in its _fact_ids.
MORE_FACTS = {
    "hostname", "fqdn", "nodename", "domain", "memtotal_mb", "memfree_mb", "swaptotal_mb", "memory_mb",
    "processor_vcpus", "processor_threads_per_core", "product_name", "system_vendor", "bios_version",
    "form_factor", "uptime_seconds",
}  # fmt: skip


def fact_names() -> set[str]:
    names = set(MORE_FACTS)
    for collector in default_collectors.collectors:
        names |= {collector.name, *(getattr(collector, "_fact_ids", None) or ())}
    return {name for name in names if name} - NOT_FACTS


def top_level_reads(text: str, names: set[str]) -> list[str]:
    pattern = re.compile(r"\bansible_(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b")
    return [match.group(0) for match in pattern.finditer(text)]


def test_the_scan_finds_a_top_level_read_and_passes_ansible_facts() -> None:
    names = fact_names()
    assert {"os_family", "default_ipv4", "hostname", "kernel"} <= names
    assert top_level_reads("{{ ansible_os_family }} {{ hostvars[h].ansible_default_ipv4.address }}", names) == [
        "ansible_os_family",
        "ansible_default_ipv4",
    ]
    assert top_level_reads("map('extract', hostvars, ['ansible_hostname'])", names) == ["ansible_hostname"]
    clean = "{{ ansible_facts['os_family'] }} {{ ansible_user }} {{ ansible_python_interpreter }} {{ ansible_host }}"
    assert top_level_reads(clean, names) == []


FILES = ("roles/**/*.yml", "roles/**/*.j2", "playbooks/**/*.yml", "molecule/**/*.yml", "site.yml")


def test_no_role_or_playbook_reads_a_facts_top_level_copy() -> None:
    names = fact_names()
    paths = sorted({path for pattern in FILES for path in ROOT.glob(pattern) if path.is_file()})
    assert len(paths) > 300, "the scan found too few files to look at"
    found = {
        str(path.relative_to(ROOT)): sorted(set(reads))
        for path in paths
        if (reads := top_level_reads(path.read_text(), names))
    }
    assert not found, f"read these as ansible_facts['<name>'] instead: {found}"
