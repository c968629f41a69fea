"""The project's variables, as data read from the roles themselves, and the inventory's unknown ones.

A variable that starts with a role's name (``cluster_``, ``slurm_``, ``galera_`` ...) and that no role reads
is a typo or a leftover: ``cluster_schedulling`` would be silently ignored and preemption would vanish. The
names every role knows are collected from its ``defaults/main.yml``, ``vars/main.yml`` and
``meta/argument_specs.yml`` (every entry point), plus what the roles and playbooks set themselves
(``set_fact``, ``register``, play ``vars``) and the facts the collection's modules return, so the list
cannot drift from the roles.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from ansible import constants
from ansible.module_utils.parsing.convert_bool import BOOLEANS

ROOT = Path(__file__).resolve().parents[2]
# Facts returned by the collection's modules (cached by Ansible's fact cache between runs): the roles read them as
# ansible_facts['gpu_host'], but a site whose ansible.cfg injects facts as variables has them as names too.
MODULE_FACTS = frozenset({"gpu_host"})
_SET_FACT = ("ansible.builtin.set_fact", "set_fact")
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Copies of the roles' variables kept in Ansible's home, one per content of the roles' files.
KEPT_VERSIONS = 8


def _parse(text: bytes) -> Any:
    try:
        # libyaml's loader where PyYAML has it
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError:
        return None


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every mapping of a task file or playbook, depth first."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _set_names(node: Any) -> set[str]:
    """Names a task file or playbook sets: set_fact keys, register targets, vars of plays, blocks and tasks."""
    names: set[str] = set()
    for mapping in _walk(node):
        for key in _SET_FACT:
            if isinstance(mapping.get(key), dict):
                names.update(str(name) for name in mapping[key])
        if isinstance(mapping.get("register"), str):
            names.add(mapping["register"])
        if isinstance(mapping.get("vars"), dict):
            names.update(str(name) for name in mapping["vars"])
    return names


def _argument_options(specs: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, spec) of every option of every entry point in a role's meta/argument_specs.yml (parsed)."""
    if not isinstance(specs, dict):
        return
    for entry in (specs.get("argument_specs") or {}).values():
        for name, option in ((entry or {}).get("options") or {}).items():
            yield str(name), option if isinstance(option, dict) else {}


def _sources(root: Path) -> list[Path]:
    """Every file the project's variables are read from, in a fixed order."""
    files: list[Path] = []
    for role in sorted(path for path in (root / "roles").iterdir() if path.is_dir()):
        files += [role / "defaults/main.yml", role / "vars/main.yml", role / "meta/argument_specs.yml"]
        for sub in ("tasks", "handlers"):
            files += sorted((role / sub).glob("*.yml"))
    return files + sorted((root / "playbooks").rglob("*.yml"))


def _read(root: Path, texts: Mapping[Path, bytes]) -> dict[str, list[str]]:
    """The variables of the roles and playbooks, from the files' texts: names, prefixes and booleans."""
    names: set[str] = set(MODULE_FACTS)
    booleans: set[str] = set()
    roles = sorted(path.name for path in (root / "roles").iterdir() if path.is_dir())
    for path, text in texts.items():
        data = _parse(text)
        if path.parent.name == "meta":
            for name, option in _argument_options(data):
                names.add(name)
                if option.get("type") == "bool":
                    booleans.add(name)
        elif path.parent.name not in ("defaults", "vars"):
            names |= _set_names(data)
        elif isinstance(data, dict):
            names.update(str(key) for key in data)
    prefixes = sorted({*roles, "cluster"}, key=len, reverse=True)
    return {"names": sorted(names), "prefixes": prefixes, "booleans": sorted(booleans)}


def _cache_dir() -> Path:
    """Where the variables read from the roles are kept between runs: Ansible's own home (ANSIBLE_HOME)."""
    return Path(str(constants.ANSIBLE_HOME)).expanduser() / "gpucluster"


@functools.lru_cache(maxsize=4)
def role_variables(root: Path = ROOT, cache: Path | None = None) -> dict[str, list[str]]:
    """The project's variables (names, prefixes, booleans), read from about 400 YAML files. Every run's validation
    needs them; parsed once for each content of the files (a hash of every file, kept in ``cache``, Ansible's home
    by default: 0.06-0.1 s of each run otherwise), read again as soon as any file changes."""
    texts: dict[Path, bytes] = {}
    digest = hashlib.sha256()
    for path in _sources(root):
        try:
            texts[path] = path.read_bytes()
        except OSError:
            continue
        digest.update(str(path.relative_to(root)).encode() + b"\0" + texts[path] + b"\0")
    kept = (cache or _cache_dir()) / f"role-variables-{digest.hexdigest()[:32]}.json"
    try:
        data = json.loads(kept.read_text(encoding="utf-8"))
        if isinstance(data, dict) and all(isinstance(data.get(key), list) for key in ("names", "prefixes", "booleans")):
            return {key: [str(item) for item in data[key]] for key in ("names", "prefixes", "booleans")}
    except (OSError, ValueError):
        pass
    data = _read(root, texts)
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=kept.parent, prefix=f".{kept.name}.")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(data, stream)
        os.replace(temporary, kept)
        _prune(kept.parent)
    except OSError:
        pass  # a home that cannot be written: read again next run
    return data


def _prune(directory: Path, keep: int = KEPT_VERSIONS) -> None:
    """Keep the ``keep`` newest copies (several checkouts may share Ansible's home); remove the older ones."""
    copies = sorted(directory.glob("role-variables-*.json"), key=lambda path: path.stat().st_mtime, reverse=True)
    for old in copies[keep:]:
        old.unlink(missing_ok=True)


def known_variables(root: Path = ROOT) -> tuple[frozenset[str], tuple[str, ...]]:
    """(every variable name the roles and playbooks read or set, the prefixes: one per role and 'cluster')."""
    data = role_variables(root)
    return frozenset(data["names"]), tuple(data["prefixes"])


def unknown_variables(variable_names: Iterable[str], root: Path = ROOT) -> list[str]:
    """One error per variable with a project prefix that no role reads, with the nearest known name."""
    known, prefixes = known_variables(root)
    pattern = re.compile(rf"^({'|'.join(map(re.escape, prefixes))})_")
    errors = []
    for name in sorted(set(variable_names)):
        if name in known or not pattern.match(name):
            continue
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        hint = f"did you mean '{close[0]}'? " if close else ""
        errors.append(
            f"variable '{name}': no role of gpucluster reads it, so it would be silently ignored; {hint}"
            "fix its name or remove it (variables that start with a role's name belong to that role)"
        )
    return errors


def boolean_variables(root: Path = ROOT) -> frozenset[str]:
    """The variables some role's argument specs declare as bool."""
    return frozenset(role_variables(root)["booleans"])


def boolean_errors(values: Mapping[str, Any]) -> list[str]:
    """A boolean variable given a value that is not one: `-e accounting_backup=maybe` arrives as a string, which
    `| bool` would read as false without a word. true/false, yes/no, on/off, 1/0 (any case) are booleans."""
    errors = []
    # (the cluster model reads its own booleans, cluster_configless..., and names them itself)
    for name in sorted(name for name in set(values) & boolean_variables() if not name.startswith("cluster_")):
        value = values[name]
        word = value.lower() if isinstance(value, str) else value
        if isinstance(value, bool) or (isinstance(word, (str, int)) and word in BOOLEANS):
            continue
        errors.append(f"variable '{name}' is {value!r}: it is a boolean; set it to true or false")
    return errors
