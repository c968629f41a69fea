"""What only the inventory's own text shows: YAML's coercions, reversed host ranges, misplaced cluster variables.

By the time a value reaches the model, YAML 1.1 has already turned an unquoted ``48:00:00`` into the base-60
number 172800 and ``024`` into the octal 20 (where the model expects a word, a boolean such as ``OFF`` is refused by
the model itself), and Ansible has turned a reversed host range
``gpu[16:01]`` into no host at all. The model cannot tell these from values meant that way, so the files the
inventory is made of (``ansible_inventory_sources``: hosts files, group_vars and host_vars) are read once more
here, as text and as YAML nodes, and each such spot is named by file and line with the fix ("quote it").

The model reads the cluster's description from the variables every host shares: a model variable set in
group_vars/<group> (other than all) or in host_vars would reach some hosts and not others, or none of the
validation's, so it is refused naming where it belongs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import SPEC_KEYS

# The cluster_* variables the model reads, one description for every host: the model's own keys, less the pod
# (set per host by the cluster role) and the controller VIP (derived per pair from pacemaker_vip).
MODEL_VARIABLES = frozenset(f"cluster_{key}" for key in SPEC_KEYS if key not in ("pod", "controller_vip"))
MAX_FILE_BYTES = 8 * 2**20
YAML_SUFFIXES = ("", ".yml", ".yaml", ".json")
_RANGE = re.compile(r"\[([0-9]+):([0-9]+)(?::[0-9]+)?\]")
_OCTAL = re.compile(r"^[-+]?0[0-7]+$")
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return None if text.startswith("$ANSIBLE_VAULT") else text


def _files(source: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """(host files, [(vars file, the group or host directory it belongs to: 'group_vars/compute', ...)])."""
    base = source if source.is_dir() else source.parent
    hosts = [p for p in sorted(base.iterdir()) if p.is_file()] if source.is_dir() else [source]
    variables: list[tuple[Path, str]] = []
    for kind in ("group_vars", "host_vars"):
        root = base / kind
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in YAML_SUFFIXES:
                owner = path.relative_to(root).parts[0]
                variables.append((path, f"{kind}/{owner.removesuffix(path.suffix) if owner == path.name else owner}"))
    return [p for p in hosts if p.suffix in (*YAML_SUFFIXES, ".ini", ".cfg")], variables


def _reversed_ranges(path: Path, text: str) -> Iterator[str]:
    for number, line in enumerate(text.splitlines(), 1):
        for match in _RANGE.finditer(line):
            low, high = match.group(1), match.group(2)
            if int(low) > int(high):
                yield (
                    f"{path}:{number}: the host range [{low}:{high}] runs backwards, and Ansible turns it into no "
                    f"host at all; write [{high}:{low}]"
                )


def _coercion(node: yaml.ScalarNode) -> str:
    """Why YAML 1.1 read a plain scalar as something other than what was written, or ''."""
    value = node.value
    if node.tag == _INT and ":" in value:
        return f"{value} is read by YAML as the base-60 number {yaml.safe_load(value)}"
    if node.tag == _INT and _OCTAL.match(value):
        return f"{value} is read by YAML as the octal number {yaml.safe_load(value)}"
    if node.tag == _FLOAT and re.match(r"^[0-9]+\.[0-9]*0$", value) and str(yaml.safe_load(value)) != value:
        return f"{value} is read by YAML as the number {yaml.safe_load(value)}, its trailing zero dropped"
    return ""


def _walk(node: yaml.Node, path: str) -> Iterator[tuple[str, yaml.ScalarNode]]:
    stack: list[tuple[yaml.Node, str]] = [(node, path)]
    seen: set[int] = set()
    while stack:
        current, where = stack.pop()
        if id(current) in seen:  # an alias: its anchor was checked
            continue
        seen.add(id(current))
        if isinstance(current, yaml.ScalarNode):
            if current.style is None:
                yield where, current
        elif isinstance(current, yaml.MappingNode):
            stack.extend((value, f"{where}.{key.value}") for key, value in reversed(current.value))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend((item, f"{where}[{index}]") for index, item in reversed(list(enumerate(current.value))))


def _variables_errors(path: Path, owner: str, text: str, pattern: re.Pattern[str]) -> Iterator[str]:
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return  # Ansible reports the file itself
    for document in documents:
        if not isinstance(document, yaml.MappingNode):
            continue
        for key, value in document.value:
            name = str(key.value)
            if not pattern.match(name):
                continue
            if name in MODEL_VARIABLES and owner not in ("group_vars/all",):
                yield (
                    f"{path}:{key.start_mark.line + 1}: {name} is set in {owner}, but the model reads the cluster's "
                    "description once for every host; move it to group_vars/all (a pod's own fabric, release, "
                    "VIP or slurm.conf settings go in cluster_federation.pods.<pod>)"
                )
            for where, scalar in _walk(value, name):
                why = _coercion(scalar)
                if why:
                    yield f"{path}:{scalar.start_mark.line + 1}: {where}: {why}; quote it: '{scalar.value}'"


def _shadowed_errors(base: Path) -> Iterator[str]:
    """Variables files Ansible never reads: for each group or host it takes the first of <name>/ (a directory),
    <name>, <name>.yml, <name>.yaml and <name>.json that exists and ignores the others without a word - a
    group_vars/all.yml beside the group_vars/all/ of a copied sample is never read."""
    for kind in ("group_vars", "host_vars"):
        root = base / kind
        if not root.is_dir():
            continue
        # each form ranked as Ansible looks for it: YAML_SUFFIXES' order ('' first: the directory, or a bare file)
        forms: dict[str, list[tuple[int, Path]]] = {}
        for path in sorted(root.iterdir()):
            if path.name.startswith(".") or path.name.endswith("~"):
                continue
            suffix = path.suffix if path.suffix in YAML_SUFFIXES else ""
            forms.setdefault(path.name.removesuffix(suffix), []).append((YAML_SUFFIXES.index(suffix), path))
        for stem, ranked in forms.items():
            if len(ranked) < 2:
                continue
            read, *ignored = [path for _, path in sorted(ranked)]
            shown = f"{read}/" if read.is_dir() else str(read)
            for path in ignored:
                yield (
                    f"{path}: never read - Ansible reads {shown} for {kind.split('_')[0]} '{stem}' and ignores the "
                    f"{'directory' if path.is_dir() else 'file'} beside it; move its variables into {shown}"
                )


def inventory_text_errors(sources: Sequence[str], prefixes: Sequence[str]) -> list[str]:
    """Errors found in the inventory's files (``ansible_inventory_sources``) for the project's variables
    (those starting with one of ``prefixes`` and '_')."""
    pattern = re.compile(rf"^({'|'.join(map(re.escape, prefixes))})_")
    errors: list[str] = []
    for source in sources:
        path = Path(str(source))
        if not path.exists():
            continue  # a host list given on the command line ('host1,host2,')
        hosts, variables = _files(path)
        errors += _shadowed_errors(path if path.is_dir() else path.parent)
        for file in hosts:
            text = _read(file)
            if text is not None:
                errors += _reversed_ranges(file, text)
        for file, owner in variables:
            text = _read(file)
            if text is not None:
                errors += _variables_errors(file, owner, text, pattern)
    return errors


def _inventory_files(sources: Sequence[str], playbook_dir: str) -> Iterator[Path]:
    """Every file a static inventory is made of: each source file with the group_vars and host_vars beside it, every
    file under a source directory, and the group_vars and host_vars beside the playbook."""
    directories: list[Path] = []
    for source in sources:
        path = Path(str(source))
        if path.is_dir():
            directories.append(path)
        elif path.is_file():
            yield path
            directories += [path.parent / "group_vars", path.parent / "host_vars"]
    if playbook_dir:
        directories += [Path(playbook_dir) / "group_vars", Path(playbook_dir) / "host_vars"]
    for directory in directories:
        if directory.is_dir():
            yield from (file for file in sorted(directory.rglob("*")) if file.is_file())


def may_set(sources: Sequence[str], name: str, playbook_dir: str = "") -> bool:
    """Whether the inventory (``ansible_inventory_sources``, and the group_vars and host_vars beside the playbook) may
    give some host its own value of the variable ``name`` (or of those whose names hold it). False only when every
    file it is made of reads as plain text that does not hold the name - no inventory script, vault-encrypted or
    unreadable file, none too large to read - so that every host has the value the run gives all of them (a role's
    default, an extra variable)."""
    for file in _inventory_files(sources, playbook_dir):
        if os.access(file, os.X_OK):
            return True  # an inventory script: its hosts' variables are its output's
        text = _read(file)
        if text is None or name in text:
            return True
    return False
