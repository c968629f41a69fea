"""A fake scontrol for one node, answering `show node --oneliner` and `update` as the real command does, for
the tests of the tools that drain and resume nodes (gpucluster-gpu-check, gpucluster-node-health)."""

from __future__ import annotations

from collections.abc import Sequence


class FakeScontrol:
    def __init__(self, state: str = "IDLE", reason: str = "") -> None:
        self.state, self.reason = state, reason
        self.calls: list[list[str]] = []

    def scontrol(self, argv: Sequence[str]) -> tuple[int, str] | None:
        """The answer to an scontrol command line; None for any other command."""
        if argv[:3] == ["scontrol", "show", "node"]:
            reason = f" Reason={self.reason} [root@2026-11-23T10:00:00]" if self.reason else ""
            return 0, f"NodeName=gpu01 Arch=x86_64 State={self.state} Gres=gpu:h100:2{reason} Comment=(null)"
        if argv[:2] == ["scontrol", "update"]:
            update = dict(arg.split("=", 1) for arg in argv[2:])
            base = self.state.split("+")[0]
            self.state, self.reason = (f"{base}+DRAIN", update["Reason"]) if update["State"] == "DRAIN" else (base, "")
            return 0, ""
        return None
