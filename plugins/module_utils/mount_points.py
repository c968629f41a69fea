"""Where a shared file system may be mounted: never over a tree the operating system or a daemon on the host owns.

The nfs role mounts every export (or filer mount) at the same path on every host but the server, and the lustre role
mounts its file systems on the compute and login nodes: a mount at /etc, /usr or /var/lib/mysql would hide that tree
of every such host (the node stops booting, MariaDB opens the file server's directory instead of its own), and an
export of it hands the server's own tree (/etc/shadow included) to every client.
"""

from __future__ import annotations

# Trees nothing may be mounted over or below; and directories that may hold a mount below them but not be one.
SYSTEM_TREES = ("/etc", "/usr", "/boot", "/dev", "/proc", "/sys", "/run", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
DAEMON_TREES = ("/var/lib", "/var/log", "/var/spool", "/var/cache", "/var/run", "/var/lock")
NOT_ITSELF = ("/", "/var", "/root", "/tmp", "/var/tmp")

# /usr/local is the site's (software trees under it are often shared), but the roles install their programs in these.
LOCAL_PROGRAMS = ("/usr/local", "/usr/local/bin", "/usr/local/sbin", "/usr/local/libexec", "/usr/local/lib")
ELSEWHERE = "Mount shared data under a directory of its own (/home, /apps, /data, /srv, /scratch)"


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
        if clean == tree or clean.startswith(tree + "/"):
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
