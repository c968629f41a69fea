"""Where a shared file system may be mounted: never over a tree the operating system or a daemon on the host owns.

The nfs role mounts every export (or filer mount) at the same path on every host but the server, and the lustre role
mounts its file systems on the compute and login nodes: a mount at /etc, /usr or /var/lib/mysql would hide that tree
of every such host (the node stops booting, MariaDB opens the file server's directory instead of its own), and an
export of it hands the server's own tree (/etc/shadow included) to every client.
"""

from __future__ import annotations

from collections.abc import Mapping

# Trees nothing may be mounted over or below; and directories that may hold a mount below them but not be one.
SYSTEM_TREES = ("/etc", "/usr", "/boot", "/dev", "/proc", "/sys", "/run", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
DAEMON_TREES = ("/var/lib", "/var/log", "/var/spool", "/var/cache", "/var/run", "/var/lock")
NOT_ITSELF = ("/", "/var", "/root", "/tmp", "/var/tmp")

# /usr/local is the site's (software trees under it are often shared), but the roles install their programs in these.
LOCAL_PROGRAMS = ("/usr/local", "/usr/local/bin", "/usr/local/sbin", "/usr/local/libexec", "/usr/local/lib")
ELSEWHERE = "Mount shared data under a directory of its own (/home, /apps, /data, /srv, /scratch)"


def within(path: str, top: str) -> bool:
    """Whether ``path`` is ``top`` or a path below it (both without a trailing slash, but for ``top`` '/')."""
    return path == top or path.startswith(top.rstrip("/") + "/")


def mount_point_error(path: str) -> str:
    """Why ``path`` cannot be a shared file system's mount point on every host (or the server's export), or ''."""
    clean = "/" + path.strip("/")
    if clean in LOCAL_PROGRAMS:
        return (
            f"{path} holds the programs the roles install on each host (/usr/local/bin, sbin, libexec: the GPU check, "
            f"the backups, the exporters); a shared file system there would hide them or share one host's copy. "
            f"{ELSEWHERE}, or a tree of its own under /usr/local (/usr/local/apps)"
        )
    if clean.startswith("/usr/local/"):
        return ""
    for tree in (*SYSTEM_TREES, *DAEMON_TREES):
        if within(clean, tree):
            owner = (
                "the operating system" if tree in SYSTEM_TREES else "the hosts' daemons (databases, Slurm state, logs)"
            )
            subject = path if clean == tree else f"{path} is inside {tree}, and {tree}"
            return (
                f"{subject} is kept by {owner} on each host's own disk: a shared file system mounted there hides it "
                "on every host that mounts it, and an export of it hands the server's own files to every client. "
                f"{ELSEWHERE}"
            )
    if clean in NOT_ITSELF:
        return (
            f"{path} is a directory every host keeps for itself (its own root, temporary files or root's home): a "
            f"shared file system there would hide it on every host. {ELSEWHERE}"
        )
    return ""


def nfs_types(options: str) -> tuple[str, ...]:
    """The types /proc/mounts may show for an NFS mount with these options: nfs for versions 2 and 3, nfs4 for 4.x,
    either where no version is named (the client offers 4 first and takes what the server has)."""
    for option in options.split(","):
        name, _, value = option.strip().partition("=")
        if name in ("vers", "nfsvers") and value:
            return ("nfs4",) if value.startswith("4") else ("nfs",)
    return ("nfs", "nfs4")


def health_check_mount_errors(health_check: object, mounted: Mapping[str, tuple[str, tuple[str, ...]]]) -> list[str]:
    """A mount of cluster_health_check with a file system type that the role mounting its path cannot give it
    (``mounted``: path -> (the variable that mounts it, the types the kernel may show)): slurmd's health program
    would drain every node for it. The program reads `nfs` as any NFS version (fstab's word), `nfs4` as version 4."""
    mounts = health_check.get("mounts") if isinstance(health_check, Mapping) else None
    errors = []
    for index, mount in enumerate(mounts if isinstance(mounts, list) else []):
        if not isinstance(mount, Mapping) or not isinstance(mount.get("path"), str) or not mount.get("fstype"):
            continue
        path, wanted = mount["path"].rstrip("/") or "/", str(mount["fstype"])
        if path not in mounted:
            continue  # mounted by the site's own means: the check is the site's word
        variable, shown = mounted[path]
        if wanted in shown or (wanted == "nfs" and "nfs4" in shown):
            continue
        fix = "nfs (any NFS version)" if "nfs4" in shown else " or ".join(shown)
        errors.append(
            f"cluster_health_check.mounts[{index}].fstype: {path} is mounted by {variable}, which the kernel shows as "
            f"{' or '.join(shown)}, not {wanted!r}: slurmd's health program would drain every node for it. Write "
            f"fstype: {fix}, or leave fstype out"
        )
    return errors
