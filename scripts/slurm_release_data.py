#!/usr/bin/env python3
"""Writes plugins/module_utils/slurm_release_data.py: what each Slurm release in scope accepts, read from
Debian's own packages of it in the lab images (gpucluster/lab:bookworm = 22.05, trixie = 24.11, sid = 26.05).

- the keys of slurm.conf (its PARAMETERS section), of partition and node lines, and of gres.conf,
  cgroup.conf, oci.conf, slurmdbd.conf and topology.conf, from the man pages (section 5) the packages ship;
- the slurm.conf keys slurmctld's parser knows without documenting them (SbcastParameters, obsolete keys it
  ignores): the CamelCase strings of libslurmfull.so, where the parser's option table lives - used only to
  avoid refusing a key Slurm reads, never to accept a typo the man page and the library both lack;
- the options of the slurm.conf keys whose value is a list of options the daemons look for by name
  (SchedulerParameters, SlurmctldParameters, ...: OPTION_KEYS), from the entries under each key in slurm.conf(5);
- the plugins installed with the daemons (/usr/lib/x86_64-linux-gnu/slurm-wlm/*.so);
- the values Slurm's own configuration parser takes for each documented slurm.conf key, tried one line at a time with
  the release's scontrol (which reads slurm.conf with slurmctld's parser and stops where slurmctld stops, "Unable to
  process configuration file"): the keys read as numbers ("is not a valid number") with the forms of value each
  refuses (a word, a negative, a decimal, a unit after the number, UNLIMITED), and the keys read as yes or no ("is
  not a valid option").

Run after lab/images/build.sh:  .venv/bin/python scripts/slurm_release_data.py [--check]
"""

from __future__ import annotations

import argparse
import gzip
import io
import pprint
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "plugins" / "module_utils" / "slurm_release_data.py"
SUITES = {"bookworm": "22.05", "trixie": "24.11", "sid": "26.05"}
MAN_PAGES = ("slurm.conf", "gres.conf", "cgroup.conf", "oci.conf", "slurmdbd.conf", "topology.conf")
LIBRARY = "/usr/lib/x86_64-linux-gnu/slurm-wlm/libslurmfull.so"
PLUGIN_DIR = "/usr/lib/x86_64-linux-gnu/slurm-wlm"
# Sections of slurm.conf(5) whose .TP entries are keys of one kind of line.
SLURM_CONF_SECTIONS = {"PARAMETERS": "slurm.conf", "PARTITION CONFIGURATION": "partition", "NODE CONFIGURATION": "node"}
_KEY = re.compile(r"^\\fB([A-Z][A-Za-z0-9]*)\\fR")
# slurm.conf keys whose value is a comma-separated list of options that slurmctld, slurmd and the commands look for
# by name (xstrcasestr): an option none of them knows is ignored without a word.
OPTION_KEYS = (
    "SchedulerParameters",
    "SlurmctldParameters",
    "SlurmdParameters",
    "LaunchParameters",
    "CommunicationParameters",
    "DependencyParameters",
    "PreemptParameters",
)
_OPTION = re.compile(r"^\\fB([A-Za-z][A-Za-z0-9_]*)")
_CAMEL = re.compile(rb"(?<=\x00)[A-Z][a-z]+(?:[A-Z][A-Za-z0-9]*)+(?=\x00)")


def man_keys(text: str) -> dict[str, list[str]]:
    """The keys a man page documents, per section: the bold name after a bare `.TP` outside indented blocks
    (values of a key are listed in `.RS` blocks or under `.TP N`)."""
    section, depth = "", 0
    keys: dict[str, list[str]] = {}
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(".SH"):
            section, depth = line[3:].strip().strip('"'), 0
        elif line.startswith(".RS"):
            depth += 1
        elif line.startswith(".RE"):
            depth = max(0, depth - 1)
        elif line.strip() == ".TP" and depth == 0 and index + 1 < len(lines):
            match = _KEY.match(lines[index + 1])
            if match and match.group(1) not in keys.setdefault(section, []):
                keys[section].append(match.group(1))
    return keys


def man_options(text: str, keys: set[str], wanted: tuple[str, ...] = OPTION_KEYS) -> dict[str, list[str]]:
    """The options slurm.conf(5) lists under each key of ``wanted``: the bold name after a `.TP` (or `.TP N`) one
    block in from the key's own entry (bf_window=#, Ignore_NUMA: the name before any "="), up to the next of
    ``keys`` (slurm.conf's own keys: 26.05's page leaves the block of SlurmdParameters' options open, so the keys
    after it are one block in too)."""
    depth, key = 0, ""
    options: dict[str, list[str]] = {}
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(".SH"):
            depth, key = 0, ""
        elif line.startswith(".RS"):
            depth += 1
        elif line.startswith(".RE"):
            depth = max(0, depth - 1)
        elif re.fullmatch(r"\.TP( \d+)?\s*", line) and index + 1 < len(lines):
            match = _OPTION.match(lines[index + 1])
            if match and match.group(1) in keys:
                depth, key = 0, ""
            if depth == 0 and line.strip() == ".TP":
                key = match.group(1) if match and match.group(1) in wanted else ""
            elif depth == 1 and key and match and match.group(1) not in options.setdefault(key, []):
                options[key].append(match.group(1))
    return {name: sorted(found, key=str.lower) for name, found in sorted(options.items())}


def _suite_files(suite: str) -> dict[str, bytes]:
    """The man pages, the library and the plugin list of a lab image, as one tar stream from `docker run`."""
    script = (
        "set -e; mkdir -p /tmp/x; cd /tmp/x; "
        f"for page in {' '.join(MAN_PAGES)}; do cp /usr/share/man/man5/$page.5.gz . 2>/dev/null || true; done; "
        f"cp {LIBRARY} libslurmfull.so; ls {PLUGIN_DIR} > plugins.txt; "
        "dpkg-query -W -f='${Version}' slurmctld > version; tar -cf - ."
    )
    result = subprocess.run(
        ["docker", "run", "--rm", "--entrypoint", "bash", f"gpucluster/lab:{suite}", "-c", script],
        capture_output=True,
        check=True,
        timeout=300,
    )
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(result.stdout)) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member)
            if handle is not None:
                files[member.name.removeprefix("./")] = handle.read()
    return files


# One value of each form a number may be written in (slurm_keys.number_form names them the same way): what the
# parser does with each, for a key it reads as a number.
VALUE_FORMS = {
    "word": "zz9",
    "negative": "-1",
    "decimal": "1.5",
    "unit": "30s",
    "kilo": "100k",
    "unlimited": "UNLIMITED",
    "infinite": "INFINITE",
}
_TRIAL = r"""
set -u
mkdir -p /tmp/c
for key in $(cat /work/keys); do
  for value in zz9 yes %s; do
    printf 'SlurmctldHost=ctl\nClusterName=words\nNodeName=n1 CPUs=1 RealMemory=100\n' > /tmp/c/slurm.conf
    printf '%s\n' "$key" "$value" >> /tmp/c/slurm.conf
    out=$(SLURM_CONF=/tmp/c/slurm.conf timeout 10 scontrol show hostnames n1 2>&1 | grep -v '^n1$' | tr '\n' ' ')
    echo "@@ $key $value $out"
  done
done
"""


# Where a key is tried: its own line of slurm.conf, or an option of a partition's line.
TRIAL_LINES = {"slurm.conf": "PartitionName=p Nodes=n1\\n%s=%s", "partition": "PartitionName=p Nodes=n1 %s=%s"}


def value_trials(suite: str, keys: list[str], kind: str) -> dict[str, object]:
    """The keys of ``kind`` (slurm.conf, partition) the release's parser reads as numbers, each with the forms of
    value it refuses, and the keys it reads as yes or no."""
    values = " ".join(value for form, value in VALUE_FORMS.items() if form != "word")
    script = _TRIAL % (values, TRIAL_LINES[kind])
    with tempfile.TemporaryDirectory(prefix="gpucluster-values-") as work:
        Path(work, "keys").write_text("\n".join(keys) + "\n")
        Path(work, "run.sh").write_text(script)
        result = subprocess.run(
            [
                "docker",
                "run",
                "--rm",
                "--entrypoint",
                "bash",
                "-v",
                f"{work}:/work",
                f"gpucluster/lab:{suite}",
                "/work/run.sh",
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=900,
        )
    said: dict[str, dict[str, str]] = {}
    for line in result.stdout.splitlines():
        if line.startswith("@@ "):
            key, value, *rest = line[3:].split(" ", 2)
            said.setdefault(key, {})[value] = rest[0] if rest else ""
    numbers = {
        key: sorted(form for form, value in VALUE_FORMS.items() if "fatal" in answers.get(value, ""))
        for key, answers in said.items()
        if "is not a valid number" in answers.get("zz9", "")
    }
    booleans = sorted(
        key
        for key, answers in said.items()
        if "is not a valid option" in answers.get("zz9", "") and "fatal" not in answers.get("yes", "")
    )
    return {f"{kind} numbers": numbers, f"{kind} yes/no": booleans}


def release_data(suite: str) -> dict[str, object]:
    files = _suite_files(suite)
    data: dict[str, object] = {"debian_version": files["version"].decode()}
    for page in MAN_PAGES:
        raw = files.get(f"{page}.5.gz")
        if raw is None:
            continue
        sections = man_keys(gzip.decompress(raw).decode("utf-8", "replace"))
        if page == "slurm.conf":
            for section, kind in SLURM_CONF_SECTIONS.items():
                data[kind] = sorted(sections.get(section, []), key=str.lower)
            data["_slurm.conf.5"] = gzip.decompress(raw).decode("utf-8", "replace")
        else:
            data[page] = sorted({key for keys in sections.values() for key in keys}, key=str.lower)
    documented = {key.lower() for key in data["slurm.conf"]}  # type: ignore[attr-defined]
    strings = {word.decode() for word in _CAMEL.findall(files["libslurmfull.so"])}
    data["slurm.conf undocumented"] = sorted((s for s in strings if s.lower() not in documented), key=str.lower)
    for kind in TRIAL_LINES:
        data.update(value_trials(suite, list(data[kind]), kind))  # type: ignore[call-overload]
    plugins = files["plugins.txt"].decode().split()
    data["plugins"] = sorted(
        name.removesuffix(".so") for name in plugins if name.endswith(".so") and "libslurm" not in name
    )
    return data


def render(data: dict[str, dict[str, object]]) -> str:
    body = pprint.pformat(data, width=116, sort_dicts=True, compact=True)
    return (
        '"""What each Slurm release in scope accepts, read from Debian\'s packages of it (generated by\n'
        "scripts/slurm_release_data.py from the lab images; do not edit): the keys of slurm.conf, of its partition\n"
        "and node lines, of gres.conf, cgroup.conf, oci.conf, slurmdbd.conf and topology.conf (from the man pages),\n"
        "the slurm.conf keys the parser knows without a man page entry (from libslurmfull.so) and the plugins\n"
        'installed with the daemons."""\n\n'
        "from __future__ import annotations\n\n"
        f"RELEASE_DATA: dict[str, dict[str, object]] = {body}\n"
    )


def formatted(text: str) -> str:
    """The text as ruff formats it (the repository's style, so that the linters pass on the output)."""
    result = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "ruff"), "format", "--stdin-filename", str(OUTPUT), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail when the committed file differs")
    args = parser.parse_args()
    data = {release: release_data(suite) for suite, release in SUITES.items()}
    keys = {str(key) for one in data.values() for key in one["slurm.conf"]}  # type: ignore[attr-defined]
    for one in data.values():
        one["slurm.conf options"] = man_options(str(one.pop("_slurm.conf.5")), keys)
    text = formatted(render(data))
    if args.check:
        if OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run scripts/slurm_release_data.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
