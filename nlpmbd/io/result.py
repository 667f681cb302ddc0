"""Typed simulation results and their on-disk format (DIR/result.npz + DIR/meta.json).

The format is documented in README.md ("Result format") so that other tools can read it with
NumPy and json alone. Writes are atomic: each file is written to a temporary name, then renamed.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..validation import error_reason

#: Arrays of result.npz with their leading dimension: "n+1" per time point, "n" per step.
ARRAYS: dict[str, str] = {
    "t": "n+1",
    "h": "n",
    "q": "n+1",
    "v": "n+1",
    "lam": "n+1",
    "lam_eq": "n+1",
    "gap": "n+1",
    "energy": "n+1",
    "eom_residual": "n",
    "norm_residual": "n",
    "eq_residual": "n+1",
    "comp_residual": "n",
    "iterations": "n",
    "solve_time": "n",
    "status": "n",
    "contact_force": "n+1",
    "contact_point": "n+1",
    "joint_force": "n+1",
    "gap_uncorrected": "n",
    "friction_force": "n+1",
    "compliant_gap": "n+1",
    "compliant_force": "n+1",
}
FORMAT_VERSION = 1
#: Name of the copy of meta.json stored inside result.npz (a 0-d string array).
_EMBEDDED_META = "meta_json"


@dataclass
class SimulationResult:
    """Per-step histories as NumPy arrays (n steps, n+1 time points), plus metadata.

    q: (n+1, 7N) per body x y z e0 e1 e2 e3; v: (n+1, 6N) per body r_dot and body-frame w';
    lam: (n+1, M) contact normal forces (N, first row 0); lam_eq: (n+1, E) multipliers of the
    equalities (first row 0); gap: (n+1, M) true Phi_j(q) (> 0 = penetration, m);
    energy: (n+1, 3) kinetic, potential, total (J); eom_residual: (n) norm of the v-space
    equations of motion; norm_residual: (n) max_k |p_k^T p_k - 1| of the update before
    renormalisation; eq_residual: (n+1) norm of Phi_eq(q, t); comp_residual: (n)
    max_j |lam_j Phi_lin_j|; iterations, solve_time (s), status (0 solved, 1 acceptable,
    2 solved after retry, 3 failed); contact_force: (n+1, M, 3) force of each contact on the
    joint's moving body (the child, or the parent if the child is GROUND; global, N);
    contact_point: (n+1, M, 3) global contact points (m);
    joint_force: (n+1, J, 3) total constraint force of each joint on its moving body (global,
    N; the paper's CF-x, CF-y, CF-z for clearance joints); gap_uncorrected: (n) max_j Phi_j(q)
    after the step, before any penetration correction; friction_force: (n+1, M, 3) Coulomb
    friction force of each contact on its moving body (global, N; contact_force is the normal
    part); compliant_gap: (n+1, C) Phi of each compliant contact (> 0 = penetration, m);
    compliant_force: (n+1, C, 3) its force on the moving body in the step that led to the point
    (normal + friction, global, N, evaluated at the step's start; first row 0).
    """

    t: np.ndarray
    h: np.ndarray
    q: np.ndarray
    v: np.ndarray
    lam: np.ndarray
    lam_eq: np.ndarray
    gap: np.ndarray
    energy: np.ndarray
    eom_residual: np.ndarray
    norm_residual: np.ndarray
    eq_residual: np.ndarray
    comp_residual: np.ndarray
    iterations: np.ndarray
    solve_time: np.ndarray
    status: np.ndarray
    contact_force: np.ndarray
    contact_point: np.ndarray
    joint_force: np.ndarray
    gap_uncorrected: np.ndarray
    friction_force: np.ndarray
    compliant_gap: np.ndarray
    compliant_force: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def n_steps(self) -> int:
        return int(self.h.shape[0])

    @property
    def body_names(self) -> list[str]:
        return list(self.meta.get("bodies", []))

    @property
    def iteration_unit(self) -> str:
        """What `iterations` counts: IPOPT iterations, or QP solves with solver "qp"."""
        path = self.meta.get("options", {}).get("path", {})
        if isinstance(path, dict) and path.get("solver") == "qp":
            return "QP solves"
        return "IPOPT iterations"

    @property
    def completed(self) -> bool:
        return bool(self.meta.get("completed", False))

    def body_q(self, name: str) -> np.ndarray:
        """(n+1, 7) coordinates of one body."""
        k = self.body_names.index(name)
        return self.q[:, 7 * k : 7 * k + 7]

    def body_v(self, name: str) -> np.ndarray:
        k = self.body_names.index(name)
        return self.v[:, 6 * k : 6 * k + 6]

    @property
    def contact_joints(self) -> list[str]:
        """Name of the joint of each contact column."""
        return [label.split(".", 1)[0] for label in self.meta.get("contact_labels", [])]

    def driving_load(self, joint: str) -> np.ndarray:
        """(n+1,) the moment (N m, about the drive's axis) or force (N, along its axis) that a
        driving joint (DrivingAngle, DrivingCoordinate) applies to its child: minus the
        multiplier of its equality (first row 0)."""
        labels = self.meta.get("eq_labels", [])
        for suffix in ("angle", "coordinate"):
            label = f"{joint}.{suffix}"
            if label in labels:
                return -self.lam_eq[:, labels.index(label)]
        raise InputError(f"no driving joint named {joint!r} in this result")

    def force_of(self, joint: str) -> np.ndarray:
        """(n+1, 3) constraint force of one joint on its child body."""
        names = list(self.meta.get("joints", []))
        if joint not in names:
            raise InputError(f"no joint {joint!r} in this result (joints: {', '.join(names)})")
        return self.joint_force[:, names.index(joint), :]

    def penetration_fraction(self) -> dict[str, float]:
        """Per joint, the largest true penetration over the run divided by the clearance that
        the gap closes (0 when the gaps never close)."""
        scales = np.asarray(self.meta.get("contact_scales", []), dtype=float)
        out: dict[str, float] = {}
        for k, joint in enumerate(self.contact_joints):
            pen = max(0.0, float(self.gap[:, k].max()))
            frac = pen / scales[k] if k < scales.size and scales[k] > 0 else 0.0
            out[joint] = max(out.get(joint, 0.0), frac)
        return out

    # --- summary ------------------------------------------------------------------------------
    def summary(self) -> dict[str, float | int]:
        def mx(a):
            return float(np.max(a)) if a.size else 0.0

        e = self.energy[:, 2]
        return {
            "steps": self.n_steps,
            "t_end": float(self.t[-1]),
            "median_step_ms": 1e3 * float(np.median(self.solve_time)) if self.n_steps else 0.0,
            "mean_iterations": float(np.mean(self.iterations)) if self.n_steps else 0.0,
            "max_eom_residual": mx(self.eom_residual),
            "max_eq_residual": mx(self.eq_residual),
            "max_norm_residual": mx(self.norm_residual),
            "max_comp_residual": mx(self.comp_residual),
            "max_penetration": max(0.0, mx(self.gap)),
            "max_penetration_fraction": max(self.penetration_fraction().values(), default=0.0),
            "max_penetration_uncorrected": max(0.0, mx(self.gap_uncorrected)),
            "max_compliant_penetration": max(0.0, mx(self.compliant_gap)),
            "energy_change": float(e[-1] - e[0]),
            "failed_steps": int(np.sum(self.status == 3)),
            "retried_steps": int(np.sum(self.status == 2)),
        }

    # --- files --------------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike) -> Path:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        arrays = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "meta"}
        meta = dict(self.meta, format_version=FORMAT_VERSION, summary=self.summary())
        text = json.dumps(meta, indent=2, sort_keys=True, default=_json_default)
        # result.npz carries its own copy of the metadata: each file is replaced atomically, but
        # a process killed between the two writes leaves a new npz beside an old meta.json;
        # `load` then takes the copy that belongs to the arrays
        arrays[_EMBEDDED_META] = np.array(text)
        _atomic_write(d / "result.npz", lambda fh: np.savez_compressed(fh, **arrays))
        _atomic_write(d / "meta.json", lambda fh: fh.write(text.encode()))
        return d

    @classmethod
    def load(cls, directory: str | os.PathLike) -> SimulationResult:
        d = Path(directory)
        npz, meta_path = d / "result.npz", d / "meta.json"
        for p in (npz, meta_path):
            if not p.is_file():
                raise InputError(f"result directory {str(d)!r} has no {p.name}")
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError, RecursionError) as err:
            reason = error_reason(err)
            raise InputError(f"meta.json in {str(d)!r} is not valid JSON ({reason})") from None
        if not isinstance(meta, dict):
            raise InputError(f"meta.json in {str(d)!r} must hold a JSON object")
        try:
            with np.load(npz, allow_pickle=False) as data:
                if not isinstance(data, np.lib.npyio.NpzFile):
                    raise InputError(f"result.npz in {str(d)!r} is not an .npz archive")
                missing = [name for name in ARRAYS if name not in data.files]
                if missing:
                    raise InputError(f"result.npz in {str(d)!r} lacks array {missing[0]!r}")
                unknown = sorted(set(data.files) - set(ARRAYS) - {_EMBEDDED_META})
                if unknown:
                    raise InputError(f"result.npz in {str(d)!r} holds unknown array {unknown[0]!r}")
                arrays = {name: np.asarray(data[name]) for name in ARRAYS}
                embedded = str(data[_EMBEDDED_META]) if _EMBEDDED_META in data.files else None
        except InputError:
            raise
        except (OSError, ValueError, TypeError, zipfile.BadZipFile, EOFError, zlib.error) as err:
            reason = error_reason(err)
            raise InputError(f"result.npz in {str(d)!r} is unreadable ({reason})") from None
        if embedded is not None and embedded != meta_path.read_text():
            meta = _newer_meta(meta, embedded, d)
        _check_meta(meta, d)
        _check_values(arrays, d)
        n = arrays["h"].shape[0]
        for name, dim in ARRAYS.items():
            want = n + 1 if dim == "n+1" else n
            if arrays[name].shape[:1] != (want,):
                raise InputError(
                    f"result.npz in {str(d)!r}: {name} has {arrays[name].shape[:1]} rows, "
                    f"expected {want}"
                )
        widths = {"q": 7, "v": 6}
        n_bodies = arrays["q"].shape[1] // 7 if arrays["q"].ndim == 2 else -1
        for name, per_body in widths.items():
            a = arrays[name]
            if a.ndim != 2 or a.shape[1] != per_body * n_bodies or n_bodies < 1:
                raise InputError(
                    f"result.npz in {str(d)!r}: {name} has shape {a.shape}, expected "
                    f"(rows, {per_body} x bodies)"
                )
        if len(meta.get("bodies", [])) != n_bodies:
            raise InputError(
                f"meta.json in {str(d)!r} names {len(meta.get('bodies', []))} bodies, "
                f"result.npz holds {n_bodies}"
            )
        for name, key in (
            ("lam", "contact_labels"),
            ("gap", "contact_labels"),
            ("lam_eq", "eq_labels"),
        ):
            if arrays[name].ndim != 2 or arrays[name].shape[1] != len(meta.get(key, [])):
                raise InputError(
                    f"result.npz in {str(d)!r}: {name} has shape {arrays[name].shape}, "
                    f"expected one column per entry of {key} in meta.json"
                )
        n_c = len(meta.get("contact_labels", []))
        n_s = len(meta.get("compliant_labels", []))
        if arrays["compliant_gap"].shape[1:] != (n_s,):
            raise InputError(
                f"result.npz in {str(d)!r}: compliant_gap has shape "
                f"{arrays['compliant_gap'].shape}, expected (rows, {n_s})"
            )
        for name, width in (
            ("contact_force", n_c),
            ("contact_point", n_c),
            ("friction_force", n_c),
            ("compliant_force", n_s),
        ):
            if arrays[name].shape[1:] != (width, 3):
                raise InputError(
                    f"result.npz in {str(d)!r}: {name} has shape {arrays[name].shape}, "
                    f"expected (rows, {width}, 3)"
                )
        n_j = len(meta.get("joints", []))
        if arrays["joint_force"].shape[1:] != (n_j, 3):
            raise InputError(
                f"result.npz in {str(d)!r}: joint_force has shape {arrays['joint_force'].shape}, "
                f"expected (rows, {n_j}, 3)"
            )
        if arrays["energy"].ndim != 2 or arrays["energy"].shape[1] != 3:
            raise InputError(f"result.npz in {str(d)!r}: energy must have 3 columns")
        return cls(**arrays, meta=meta)


#: Types of the meta.json entries that loading relies on.
_META_TYPES = {
    "bodies": list,
    "contact_labels": list,
    "eq_labels": list,
    "joints": list,
    "contact_scales": list,
    "options": dict,
    "completed": bool,
}


def _check_meta(meta: dict, d: Path) -> None:
    for key, kind in _META_TYPES.items():
        if key in meta and not isinstance(meta[key], kind):
            raise InputError(
                f"meta.json in {str(d)!r}: {key} must be a JSON {kind.__name__}, "
                f"got {type(meta[key]).__name__}"
            )
    for key in ("bodies", "contact_labels", "eq_labels", "joints"):
        if not all(isinstance(x, str) for x in meta.get(key, [])):
            raise InputError(f"meta.json in {str(d)!r}: {key} must list names (strings)")
    version = meta.get("format_version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise InputError(
            f"meta.json in {str(d)!r}: format_version must be {FORMAT_VERSION}, got {version!r}"
        )


def _check_values(arrays: dict[str, np.ndarray], d: Path) -> None:
    """Values a simulation can produce: real numbers, finite time, step sizes > 0 that add up
    to the times, integer status codes 0-3."""
    for name, a in arrays.items():
        if a.dtype.kind not in "fiub":
            raise InputError(f"result.npz in {str(d)!r}: {name} must hold numbers, got {a.dtype}")
    t, h = arrays["t"].astype(float), arrays["h"].astype(float)
    for name, a in (("t", t), ("h", h), ("q", arrays["q"]), ("v", arrays["v"])):
        if not np.all(np.isfinite(np.asarray(a, dtype=float))):
            raise InputError(f"result.npz in {str(d)!r}: {name} must be finite")
    if np.any(h <= 0) or (
        t.shape[0] == h.shape[0] + 1
        and np.any(np.abs(np.diff(t) - h) > 1e-9 * np.maximum(1.0, np.abs(t[1:])))
    ):
        raise InputError(f"result.npz in {str(d)!r}: h must be > 0 with t[k+1] - t[k] = h[k]")
    status = arrays["status"]
    if not (np.all(np.isin(status, (0, 1, 2, 3)))):
        raise InputError(f"result.npz in {str(d)!r}: status must be integers in [0, 3]")


def _newer_meta(meta: dict, embedded: str, d: Path) -> dict:
    """meta.json differs from the copy inside result.npz. That is expected only when a process
    was killed between the two writes of a checkpoint (meta.json then belongs to an earlier
    checkpoint of the same run): use the copy that belongs to the arrays. Anything else means
    meta.json was edited or comes from another run."""
    try:
        inner = json.loads(embedded)
    except ValueError as err:
        raise InputError(f"result.npz in {str(d)!r}: bad embedded metadata ({err})") from None
    if not isinstance(inner, dict):
        raise InputError(f"result.npz in {str(d)!r}: embedded metadata is not a JSON object")

    def steps(m: dict) -> int:
        summary = m.get("summary")
        return summary.get("steps", -1) if isinstance(summary, dict) else -1

    earlier = (
        meta.get("completed") is False
        and meta.get("command") == inner.get("command")
        and meta.get("options") == inner.get("options")
        and 0 <= steps(meta) < steps(inner)
    )
    if not earlier:
        raise InputError(
            f"meta.json in {str(d)!r} does not match the metadata stored in result.npz "
            "(edited, or from another run)"
        )
    return inner


def _atomic_write(path: Path, write) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.integer, np.floating)):
        return obj.item()
    return str(obj)
