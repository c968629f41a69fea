"""A service's key and certificate on the host, signed by the cluster's CA on the controller, in one task: the host
makes its key and reports its public half and the certificate it holds (one module call), the controller keeps
that certificate while it still fits (key, names, CA, not due for renewal) or signs a new one for the public key,
which a second call installs. A re-run that changes nothing costs the host one module call instead of eight tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible_collections.gpucluster.cluster.plugins.plugin_utils import tier1, tls

_ARGS = (
    "name",
    "dir",
    "group",
    "common_name",
    "sans",
    "ca_dir",
    "ca_cert",
    "ca_key",
    "ca_common_name",
    "days",
    "renew_days",
    "ca_replace",
)


class ActionModule(ActionBase):  # type: ignore[misc]  # ansible ships no type information
    """gpucluster.cluster.tls_certificate"""

    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(_ARGS)

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = super().run(tmp, task_vars)
        args = self._task.args
        missing = [name for name in ("name", "dir", "group", "common_name") if not args.get(name)]
        if missing:
            raise AnsibleActionFail(f"tls_certificate: {', '.join(missing)} must be given")
        check = bool(self._task.check_mode)
        directory = (
            Path(str(args.get("ca_dir") or "")).expanduser() if args.get("ca_dir") and not args.get("ca_cert") else None
        )
        replace = boolean(args.get("ca_replace", False), strict=False)
        run = tier1.run_token()
        host = str(args["common_name"])
        files = {"dir": args["dir"], "name": args["name"], "group": args["group"]}
        if directory is not None and not (directory / "ca.key").exists() and not replace:
            # No cluster CA on this controller: made only for a host that holds no certificate of another one
            # (a new cluster), never under a running one (another checkout, a fresh clone of the inventory).
            before = self._files(dict(files, ca=""), task_vars)
            if before.get("failed"):
                return before
            issuer = tls.issuer_name(str(before.get("certificate") or ""))
            if issuer:
                raise AnsibleActionFail(tls.refuse_new_ca(directory, host, issuer, run, check=check))
        try:
            sans = tls.subject_alt_names(args.get("sans") or [])
            ca = tls.certificate_authority(
                directory=directory,
                cert=str(args.get("ca_cert") or ""),
                key=str(args.get("ca_key") or ""),
                common_name=str(args.get("ca_common_name") or "gpucluster cluster CA"),
                check=check,
                made_by=run,
                replace=replace,
            )
        except tls.TLSError as exc:
            raise AnsibleActionFail(f"tls_certificate ({args['name']}): {exc}") from exc

        probe = self._files(dict(files, ca=ca.cert_pem), task_vars)
        if probe.get("failed"):
            return probe
        written: list[str] = list(probe["written"])
        held = str(probe["certificate"])
        # the CA was made a moment ago in this run (for a host without a certificate) while this host holds one of
        # another CA: the cluster's CA is lost on this controller, not new
        if directory is not None and not replace and tls.made_in(directory, run) and not tls.signed_by(held, ca):
            issuer = tls.issuer_name(held)
            if issuer:
                raise AnsibleActionFail(tls.refuse_new_ca(directory, host, issuer, run, check=check))
        decision = tls.decide(
            held=held,
            public_key=probe["public_key"],
            ca=ca,
            common_name=str(args["common_name"]),
            sans=sans,
            renew_days=int(args.get("renew_days", 30)),
        )
        issued = False
        if decision.issue and probe["public_key"] and ca.key is not None:
            certificate = tls.sign(
                probe["public_key"], ca, str(args["common_name"]), sans, days=int(args.get("days", 825))
            )
            installed = self._files(dict(files, certificate=certificate), task_vars)
            if installed.get("failed"):
                return installed
            written += installed["written"]
            issued = True
        result.update(
            changed=bool(ca.made or written or decision.issue or probe.get("changed")),
            issued=issued or (decision.issue and check),
            reason=decision.reason,
            written=([str(path) for path in ca.made]) + written,
        )
        return result

    def _files(self, module_args: dict[str, Any], task_vars: dict[str, Any] | None) -> dict[str, Any]:
        returned: dict[str, Any] = self._execute_module(
            module_name="gpucluster.cluster.tls_files", module_args=module_args, task_vars=task_vars
        )
        return returned
