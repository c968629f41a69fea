"""Write the documentation of every filter plugin (`ansible-doc -t filter gpucluster.cluster.<name>`) from the
filter's own signature and docstring: plugins/filter/<name>.yml, the sidecar file Ansible reads for a filter
(one file of plugins/filter/*.py holds several filters). EXAMPLES are the first place the roles or playbooks
use the filter.

python scripts/filter_docs.py          # rewrite the sidecar files
python scripts/filter_docs.py --check  # exit 1 when one is missing or has drifted (run by the tests)
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
FILTERS = ROOT / "plugins" / "filter"
PACKAGE = "ansible_collections.gpucluster.cluster.plugins.filter"
HEADER = (
    "---\n# Written by scripts/filter_docs.py from the filter's signature and docstring ({source}); do not edit.\n"
    "# yamllint disable rule:line-length\n"  # the examples quote the roles' lines as they are
)

# What the filters' parameters carry, by name (the same names mean the same things across the plugins).
PACKAGE_QUERY_RESULT = (
    "The registered result of the C(package_query) command (C(common_installed_packages)) or its output; none where"
    " it did not run."
)
PARAMETERS = {
    "spec": "The cluster model's variables: every C(cluster_*) inventory variable without its prefix, as the"
    " cluster role gathers them.",
    "groups": "Ansible's C(groups): every inventory group with its hosts.",
    "plan": "The run's plan of the cluster (the fact C(cluster_plan), see the C(cluster_plan) filter).",
    "held": "The plan the run's opening validation built (C(hostvars['localhost'].ansible_facts.cluster_plan));"
    " none when there is none.",
    "group_names": "Ansible's C(group_names) of the host: the groups it is in.",
    "key": "The name of the setting (a key of cluster_federation.pods.<pod>).",
    "variable": "The name of a variable.",
    "inventory_sources": "C(ansible_inventory_sources): the files and directories the inventory was read from.",
    "playbook_dir": "C(playbook_dir): the playbook's directory, whose group_vars and host_vars count too.",
    "limit_hosts": "The hosts of C(--limit) (C(query('ansible.builtin.inventory_hostnames', ansible_limit))); empty"
    " or none without one.",
    "host": "The inventory name of the host.",
    "hosts": "Inventory host names.",
    "hostvars": "Ansible's C(hostvars): every inventory host by name.",
    "names": "Host names.",
    "federation": "C(cluster_federation): the pods of a federation (empty or none for one cluster).",
    "settings": "The role's settings, by variable name without the role's prefix.",
    "variable_names": "The names of the variables the inventory sets.",
    "target": "The Slurm release to reach, for example C(24.11).",
    "installed": "The Slurm release each host runs, by host.",
    "accounting_errors.node_types": "C(cluster_node_types): with GPU nodes, gres/gpu is a TRES the cluster tracks"
    " (keyword; without it, no limit's TRES is checked against the tracked ones).",
    "accounting_errors.accounting": "C(cluster_accounting): its C(tres), with the built-in TRES and gres/gpu, are"
    " the TRES a limit may name (keyword).",
    "accounting_errors.release": "C(cluster_slurm_release): from 24.11, gres/gpumem and gres/gpuutil are tracked with"
    " gres/gpu (keyword; the default release without it).",
    # (a filter's own word for an argument, where another filter's argument of the same name means something else)
    "installed_packages.installed": PACKAGE_QUERY_RESULT,
    "packages_missing.installed": PACKAGE_QUERY_RESULT,
    "packages_unselected.installed": PACKAGE_QUERY_RESULT,
    "packages_unselected.selection": "The dpkg selection the packages should have: C(hold) or C(install).",
    "account": "One account of C(accounting_accounts): its settings.",
    "user": "One user of C(accounting_users): its settings.",
    "users": "C(accounting_users): the users and their settings.",
    "operators": "C(accounting_operators): the accounts to make Slurm operators.",
    "qos": "C(cluster_qos): the QOS by name, or one QOS's settings.",
    "address": "An IP address.",
    "addresses": "Each host's address, by host.",
    "network": "A network in CIDR form (or its address, with C(netmask)).",
    "netmask": "A netmask in dotted form.",
    "port": "A TCP port number.",
    "expression": "A Slurm host list expression, e.g. C(gpu[01-16]).",
    "result": "The registered result of a C(scontrol show node) command.",
    "name": "The Slurm node name.",
    "found": "Each controller's C(ansible.builtin.find) result of the archive directory, by host.",
    "named": "The archive the operator named (empty: the newest).",
    "booleans": "The values of the variables the roles declare as booleans, by name.",
    "sources": "The inventory's own files (their YAML is read for values YAML turned into another type).",
    "kinds": "The job script kinds of the model (prolog, epilog...) with their directories and files.",
    "sample_dir": "The directory of the sample scripts shipped with the role.",
    "results": "The registered results, by host or per loop item.",
    "order": "The hosts of the galera group in inventory order.",
    "bootstrap_from": "The node the operator chose to bootstrap from (C(galera_bootstrap_from)); empty when none.",
    "variables": "Each Galera node's server variables and status, by host.",
    "limits": "The minimum settings slurmdbd needs (buffer pool, lock wait, packet and write-set sizes).",
    "controllers": "The controller pair's inventory names.",
    "logins": "The login nodes' inventory names.",
    "cib_xml": "The cluster information base as C(cibadmin --query) prints it.",
    "device": "The inventory's fence device of the host (agent, address, user, password, options).",
    "devices": "C(pacemaker_fence_devices): the fence device of each controller.",
    "per_agent": "True where the distribution packages each fence agent apart (fence-agents-<name>).",
    "networks": "The LNet networks (C(lustre_lnet_networks)).",
    "mount": "One Lustre mount of C(lustre_mounts).",
    "route": "The Alertmanager routing tree (C(monitoring_alertmanager_route)).",
    "receivers": "The Alertmanager receivers (C(monitoring_alertmanager_receivers)).",
    "inhibit_rules": "The Alertmanager inhibit rules.",
    "probes": "What the preflight read on the hosts: controllers, slurmctld's state, Galera, slurmdbd, MUNGE.",
    "plugins": "C(slurm_spank_plugins): the SPANK plugins of plugstack.conf.",
    "pending": "The hosts still to upgrade.",
    "steps": "The upgrade's steps in SchedMD's order, each a tag and its hosts.",
    "run_tags": "The run's C(ansible_run_tags).",
    "skip_tags": "The run's C(ansible_skip_tags).",
    "dump": "The path of the database dump.",
    "tables": "The job tables of the accounting database (one per cluster).",
    "before": "The rows of each job table counted before the dump began.",
    "restored": "The rows of each job table in the scratch database the dump was restored into (none: not restored).",
    "trailer": "Whether the dump ends with mysqldump's closing line.",
    "slurm_config": "C(cluster_slurm_config): slurm.conf settings of the inventory.",
}
TYPES = {"str": "str", "int": "int", "float": "float", "bool": "bool"}


def filters() -> Iterator[tuple[str, str, Callable[..., Any]]]:
    """(module, filter name, function) of every filter the plugins export."""
    sys.path.insert(0, str(ROOT / "collections"))
    package = importlib.import_module(PACKAGE)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{PACKAGE}.{info.name}")
        for name, function in sorted(module.FilterModule().filters().items()):
            yield info.name, name, function


def ansible_type(annotation: Any) -> str:
    text = str(annotation).replace("typing.", "")
    if text.startswith(("Mapping", "dict", "Dict")):
        return "dict"
    if text.startswith(("Sequence", "list", "List", "tuple")):
        return "list"
    return TYPES.get(text.split(" | ")[0], "raw")


def markup(text: str) -> str:
    """The docstrings' code spans (``x`` or `x`) in Ansible's documentation markup, C(x)."""
    return re.sub(r"``?([^`]+?)``?", r"C(\1)", text)


def description(function: Callable[..., Any]) -> list[str]:
    """The docstring's paragraphs, each on one line."""
    doc = inspect.getdoc(function) or ""
    return [markup(" ".join(paragraph.split())) for paragraph in doc.split("\n\n") if paragraph.strip()]


def returns(paragraphs: list[str], name: str) -> str:
    """What the docstring says comes out: the part after its first '->', else its first sentence."""
    first = paragraphs[0] if paragraphs else ""
    if "->" in first:
        result = first.split("->", 1)[1].strip()
        return result[0].upper() + result[1:] if result else short(paragraphs, name)
    return short(paragraphs, name)


def short(paragraphs: list[str], name: str) -> str:
    first = paragraphs[0] if paragraphs else name
    sentence = re.split(r"(?<=[.:;])\s", first, maxsplit=1)[0].rstrip(".:;")
    return sentence if len(sentence) <= 120 else sentence[:117].rsplit(" ", 1)[0] + "..."


def example(name: str) -> str:
    """The first use of the filter in the roles or playbooks, with the file it is from."""
    pattern = re.compile(rf"gpucluster\.cluster\.{name}\b")
    for path in sorted(
        [*ROOT.glob("roles/*/*/*.yml"), *ROOT.glob("roles/*/templates/*.j2"), *ROOT.glob("playbooks/*.yml")]
    ):
        lines = path.read_text().splitlines()
        for index, line in enumerate(lines):
            if pattern.search(line) and path.suffix == ".j2":
                return f"# {path.relative_to(ROOT)}\n{line.strip()}\n"
            if pattern.search(line):
                start = index
                while start > 0 and lines[start].strip() and not re.match(r"\s*(- )?[\w.]+:", lines[start]):
                    start -= 1
                indent = len(lines[start]) - len(lines[start].lstrip(" -"))
                end = index + 1
                while (
                    end < len(lines)
                    and end - start < 14
                    and lines[end].strip()
                    and (len(lines[end]) - len(lines[end].lstrip(" -")) > indent)
                ):
                    end += 1
                block = textwrap.dedent("\n".join(lines[start:end]))
                return f"# {path.relative_to(ROOT)}\n{block}\n"
    return ""


def document(module: str, name: str, function: Callable[..., Any]) -> str:
    signature = inspect.signature(function, eval_str=False)
    parameters = list(signature.parameters.values())
    paragraphs = description(function)
    options: dict[str, Any] = {}
    for index, parameter in enumerate(parameters):
        option: dict[str, Any] = {
            "description": PARAMETERS.get(
                f"{name}.{parameter.name}", PARAMETERS.get(parameter.name, f"The C({parameter.name}) argument.")
            ),
            "type": ansible_type(parameter.annotation),
        }
        if index == 0:
            option["description"] = f"The value the filter is applied to ({parameter.name}). " + option["description"]
        if parameter.default is inspect.Parameter.empty:
            option["required"] = True
        else:
            option["default"] = list(parameter.default) if isinstance(parameter.default, tuple) else parameter.default
        options["_input" if index == 0 else parameter.name] = option
    documentation: dict[str, Any] = {
        "name": name,
        "version_added": "0.1.0",
        "short_description": short(paragraphs, name),
        "description": paragraphs or [name],
        "author": "gpucluster maintainers",
    }
    positional = [parameter.name for parameter in parameters[1:] if parameter.kind is not parameter.KEYWORD_ONLY]
    if positional:
        documentation["positional"] = ", ".join(positional)
    documentation["options"] = options
    returned = {"_value": {"description": returns(paragraphs, name), "type": ansible_type(signature.return_annotation)}}
    text = HEADER.format(source=f"plugins/filter/{module}.py")
    text += yaml.safe_dump({"DOCUMENTATION": documentation}, sort_keys=False, width=110, allow_unicode=True)
    uses = example(name) or f'value: "{{{{ value | gpucluster.cluster.{name} }}}}"\n'
    text += "EXAMPLES: |\n" + textwrap.indent(uses, "  ")
    text += yaml.safe_dump({"RETURN": returned}, sort_keys=False, width=110)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    drifted, written = [], set()
    for module, name, function in filters():
        path = FILTERS / f"{name}.yml"
        written.add(path)
        text = document(module, name, function)
        if not path.exists() or path.read_text() != text:
            drifted.append(str(path.relative_to(ROOT)))
            if not args.check:
                path.write_text(text)
    stale = sorted(set(FILTERS.glob("*.yml")) - written)
    drifted += [f"{path.relative_to(ROOT)} (no such filter)" for path in stale]
    if not args.check:
        for path in stale:
            path.unlink()
    if args.check and drifted:
        print("filter documentation out of date (run python scripts/filter_docs.py):", *drifted, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
