"""Gates of a Slurm version upgrade, decided before any host is changed.

The installed versions come from the hosts' package facts; the target is the inventory's
``cluster_slurm_release``. SchedMD's rules (the upgrade guide): slurmdbd first, then the controllers, then
slurmd; each newer daemon accepts the releases of its compatibility window and nothing older; no downgrade
(the database and the state files are converted on the way up).
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping, Sequence

from .releases import KNOWN_RELEASES, Release, accepts, compatibility_window, upgrade_path

_VERSION = re.compile(r"^(?:\d+:)?(\d+)\.(\d+)\.")
# The binary packages built from Slurm's source (Debian's names): an upgrade pins every one of them to the target.
# (pam_slurm_adopt's libpam-slurm-adopt too: left on the old release, it would hold back or lose its libslurm)
SOURCE_PACKAGES = re.compile(r"^(slurm|libslurm|libpmi0$|libpmi2-0$|libpam-slurm)")
# A shared library named for its soname (libslurm42t64): each release has its own, which the packages that need it
# pull in; the old one has no build of the target release and stays until autoremoved.
SONAME_PACKAGES = re.compile(r"^libslurm\d+(t64)?$")
# The packages whose version is a host's release, by preference: its daemon's, else the client's.
RELEASE_PACKAGES = ("slurmdbd", "slurmctld", "slurmd", "slurm-client")


def source_packages(installed: Iterable[str], target: str) -> list[str]:
    """The host's installed packages built from Slurm's source, each pinned to the ``target`` release
    (``slurmd=24.11.*``), in the order given."""
    return [
        f"{name}={target}.*" for name in installed if SOURCE_PACKAGES.match(name) and not SONAME_PACKAGES.match(name)
    ]


def release_package(installed: Container[str]) -> str:
    """The package whose installed version is the host's release: its daemon's (slurmdbd, slurmctld, slurmd, in
    that order), else the client's (also when none is installed)."""
    return next((name for name in RELEASE_PACKAGES if name in installed), RELEASE_PACKAGES[-1])


def interrupted_conversions(units: Mapping[str, str]) -> list[str]:
    """The dbd hosts (host -> ``systemctl is-enabled slurmdbd``) whose slurmdbd an earlier run left masked: it
    stopped during the database conversion, which this run resumes."""
    return sorted(host for host, state in units.items() if state.strip() == "masked")


def release_of(version: str) -> Release | None:
    """The major release of a package version (``24.11.5-4+deb13u1`` -> 24.11), None if unreadable."""
    match = _VERSION.match(version)
    return Release(int(match.group(1)), int(match.group(2))) if match else None


def oldest_release(installed: Mapping[str, str]) -> str:
    """The oldest release installed (host -> package version, "" when none): the one an upgrade leaves; ""
    when no host has a readable one."""
    releases = [release for release in map(release_of, installed.values()) if release is not None]
    return str(min(releases)) if releases else ""


def lagging_controllers(installed: Mapping[str, str], target: str) -> list[str]:
    """The controllers of a pair (host -> installed slurmctld version) still on an older release while another
    one already runs ``target``: slurmctld must not start there - it cannot read the state the newer one wrote.
    Empty when none runs ``target`` yet (the pair holds one release, whichever it is)."""
    releases = {host: release_of(version) for host, version in installed.items()}
    goal = str(target)
    if not any(str(release) == goal for release in releases.values() if release is not None):
        return []
    return sorted(host for host, release in releases.items() if release is None or str(release) != goal)


def upgrade_errors(installed: Mapping[str, str], target: str) -> list[str]:
    """Why the hosts (host -> installed Slurm package version, "" when none) cannot go to ``target``."""
    if target not in KNOWN_RELEASES:
        known = ", ".join(KNOWN_RELEASES)
        return [f"cluster_slurm_release: {target!r} is not a Slurm release this project knows ({known})"]
    goal = Release.parse(target)
    errors: list[str] = []
    by_release: dict[Release, list[str]] = {}
    for host, version in sorted(installed.items()):
        if not version:
            continue
        release = release_of(version)
        if release is None or str(release) not in KNOWN_RELEASES:
            errors.append(f"{host}: Slurm {version} is not a release this project knows; upgrade it by hand")
            continue
        by_release.setdefault(release, []).append(host)
    for release, hosts in sorted(by_release.items()):
        where = _hosts(hosts)
        if release > goal:
            errors.append(
                f"{where} run Slurm {release}, newer than cluster_slurm_release {target}: Slurm cannot be "
                f"downgraded (slurmdbd and slurmctld have converted the database and the state files); "
                f"set cluster_slurm_release: '{release}'"
            )
        elif not accepts(goal, release):
            path = upgrade_path(release, goal)
            errors.append(
                f"{where} run Slurm {release}; {target} accepts only the {_window(goal)} releases before it, so "
                f"{release} -> {target} would lose the state and accounting records it cannot convert. Upgrade "
                f"through {path[0]} first (cluster_slurm_release: '{path[0]}', then upgrade-slurm.yml again; "
                f"the whole path: {' -> '.join(str(r) for r in [release, *path])})"
            )
    return errors


def installed_release_error(host: str, versions: Mapping[str, str], release: str, setting: str) -> str:
    """The refusal of a run that would write ``release``'s files on a host whose installed Slurm (package name ->
    version) is another release; "" where they agree or Slurm is not installed (a new host gets the release its
    package source offers). ``setting``: the variable that gives the host its release."""
    package = release_package(versions)
    version = versions.get(package, "")
    installed = release_of(version) if version else None
    if installed is None or str(installed) == str(release):
        return ""
    if installed > Release.parse(release):
        fix = (
            f"Slurm is not downgraded (the database and the state files are converted on the way up): set {setting}: "
            f"'{installed}'"
        )
    else:
        fix = (
            f"Move the cluster to {release} with playbooks/upgrade-slurm.yml (SchedMD's order, the jobs kept), or set "
            f"{setting}: '{installed}'"
        )
    return (
        f"{host} runs Slurm {installed} ({package} {version}), but {setting} is '{release}': this run would write "
        f"{release}'s files for {installed}'s daemons (slurmctld stops on a key it does not know). {fix}"
    )


# What a host's package source would install as Slurm, per OS family: apt's candidate of the client (every Slurm host
# gets it; the daemons come from the same source package), dnf's newest slurm.
CANDIDATE_QUERY: dict[str, tuple[str, ...]] = {
    "Debian": ("apt-cache", "policy", RELEASE_PACKAGES[-1]),
    "RedHat": ("dnf", "--quiet", "repoquery", "--latest-limit=1", "--queryformat=%{version}\n", "slurm"),
}


# The groups whose hosts get Slurm (a daemon or the client) from the roles.
SLURM_GROUPS = ("controllers", "compute", "login", "dbd")


def candidate_query(os_family: str, group_names: Iterable[str], installed: Container[str]) -> list[str]:
    """`CANDIDATE_QUERY` of the host's OS family (Debian's for one it does not know) where the host gets Slurm in this
    run and has none of it installed (``installed``: its package names); [] where there is nothing to ask."""
    if not set(group_names) & set(SLURM_GROUPS) or any(name in installed for name in RELEASE_PACKAGES):
        return []
    return list(CANDIDATE_QUERY.get(os_family, CANDIDATE_QUERY["Debian"]))


def candidate_version(output: str) -> str:
    """The version a package source offers, from `CANDIDATE_QUERY`'s output (apt-cache policy's ``Candidate:`` line,
    or dnf's version alone); "" where it offers none (``(none)``, no output)."""
    match = re.search(r"(?m)^\s*Candidate:\s*(\S+)", output)
    found = match.group(1) if match else next((line.strip() for line in output.splitlines() if line.strip()), "")
    return "" if found == "(none)" else found


def candidate_release_error(host: str, version: str, release: str, setting: str) -> str:
    """The refusal of a run that would install Slurm on a host without it from a package source offering another
    release than its cluster's (``version``: the source's candidate, "" for none); "" when they agree."""
    offered = release_of(version) if version else None
    if offered is not None and str(offered) == str(release):
        return ""
    if offered is None:
        what = f"its package source offers no Slurm ({RELEASE_PACKAGES[-1]}: {version or 'no candidate'})"
        fix = "Add the repository that carries Slurm (the distribution's, or the site's mirror), then run again"
    else:
        what = f"its package source offers Slurm {offered} ({version})"
        newer = offered > Release.parse(release)
        fix = (
            f"Give {host} a package source of Slurm {release} (an operating system release that carries it, or the "
            f"site's mirror), or take it out of this run; "
            + (
                f"slurmctld {release} cannot take a slurmd {offered}, newer than itself"
                if newer
                else f"{offered}'s daemons would read {release}'s files, whose keys they may not know"
            )
        )
    return (
        f"{host} has no Slurm yet and {what}, but {setting} is '{release}': this run would install it and write "
        f"{release}'s files for it. {fix}. Nothing was installed"
    )


def hosts_to_upgrade(installed: Mapping[str, str], target: str) -> list[str]:
    """Hosts with Slurm installed at another release than ``target``."""
    goal = Release.parse(target)
    return sorted(host for host, version in installed.items() if version and release_of(version) != goal)


# The step of upgrade-slurm.yml that backs up what the upgrade converts: every later step needs it to have run.
BACKUP_STEP = "backup"


def order_errors(
    pending: Sequence[str],
    steps: Sequence[tuple[str, Sequence[str]]],
    run_tags: Sequence[str],
    skip_tags: Sequence[str],
) -> list[str]:
    """Why ``--tags``/``--skip-tags`` would upgrade a step before an earlier one: ``steps`` are the playbook's
    tags in SchedMD's order with their hosts (slurmdbd: dbd, slurmctld: controllers, slurmd: compute, ...); a
    step that runs and has hosts to upgrade needs every earlier step with hosts to upgrade to run too."""
    todo = set(pending)

    def runs(tag: str) -> bool:
        return ("all" in run_tags or tag in run_tags) and tag not in skip_tags

    errors: list[str] = []
    behind: list[tuple[str, list[str]]] = []
    for tag, hosts in steps:
        left = sorted(todo.intersection(hosts))
        if not left:
            continue
        daemons = [(step, where) for step, where in behind if step != BACKUP_STEP]
        if runs(tag) and len(daemons) < len(behind):
            errors.append(
                f"the run upgrades {tag} on {_hosts(left)} but its tags leave out {BACKUP_STEP}: nothing is "
                "converted without the dump of the accounting database and the archive of StateSaveLocation taken "
                f"just before; add the tag {BACKUP_STEP} or drop the --tags/--skip-tags"
            )
        if runs(tag) and daemons:
            skipped = ", ".join(f"{step} ({_hosts(where)})" for step, where in daemons)
            errors.append(
                f"the run upgrades {tag} on {_hosts(left)} but its tags leave out {skipped}, still on the old "
                f"release: Slurm's daemons go up in order (slurmdbd, slurmctld, slurmd); add those tags or drop "
                f"the --tags/--skip-tags"
            )
        if not runs(tag):
            behind.append((tag, left))
    return errors


def _window(release: Release) -> str:
    count = compatibility_window(release)
    return {2: "two", 3: "three"}.get(count, str(count))


def _hosts(hosts: list[str]) -> str:
    return ", ".join(hosts[:5]) + (f" and {len(hosts) - 5} more" if len(hosts) > 5 else "")


def dump_errors(
    dump: str, tables: Sequence[str], before: Sequence[int], restored: Sequence[int] | None, trailer: bool
) -> list[str]:
    """Why a dump of the accounting database cannot be trusted: it lacks mysqldump's closing line (cut short),
    or, restored into a scratch database, a job table holds fewer rows than the source held before the dump
    began (``restored`` None: the restore was not asked for). Records only grow while slurmdbd runs, so a
    restored count at least the count read before the dump proves the dump holds every job of before."""
    errors = []
    if not trailer:
        errors.append(
            f"{dump}: the dump does not end with mysqldump's 'Dump completed' line - it was cut short (disk full, "
            "the dump killed); free space in the backup directory and run again"
        )
    if restored is not None:
        if len(restored) != len(tables):
            errors.append(f"{dump}: restored, it holds {len(restored)} job tables, the database {len(tables)}")
        for table, rows, copied in zip(tables, before, restored, strict=False):
            if copied < rows:
                errors.append(
                    f"{dump}: restored, {table} holds {copied} rows, the database held {rows} before the dump; "
                    "the dump is incomplete - nothing was converted, run again"
                )
    return errors
