"""Accuracy part of the Siconos peer benchmark (`--physics`, benchmarks/peer_siconos.py): each
side at h = 1e-6, 1e-5, 1e-4 over two crank turns; revolution-time errors against the same
side's h = 1e-6 run and the other side's; the accuracy target of issue 14."""

from __future__ import annotations

from .peer_runs import Spec, run_nlpmbd, run_siconos

PHYSICS_H = (1e-6, 1e-5, 1e-4)  # the first: each side's own fine-step reference
ERROR_KEYS = ("first_revolution", "two_revolutions")
OTHER = {"siconos": "nlpmbd", "nlpmbd": "siconos"}


def errors(row: dict, ref: dict) -> dict:
    """|row - ref| of the revolution times (s), None where either is missing."""
    return {k: None if row.get(k) is None or ref.get(k) is None else abs(row[k] - ref[k])
            for k in ERROR_KEYS}  # fmt: skip


def physics_runs(args) -> list[dict]:
    """Each side at each h of PHYSICS_H, with its errors against both h = 1e-6 runs."""
    runs = []
    for side in ("siconos", "nlpmbd"):
        for h in PHYSICS_H:
            spec, t_end = Spec(side, h), args.physics_t_end
            if side == "siconos":
                row = run_siconos(spec, t_end, args.siconos_python, physics=True)
            else:
                row = run_nlpmbd(spec, t_end, physics=True)
            runs.append({**row, "side": side, "run": spec.label.split(" (")[0], "h": h})
            print(f"  {runs[-1]['run']:<10} h={h:g}  loop {row['loop_time']:.1f} s", flush=True)
    ref = {r["side"]: r for r in runs if r["h"] == PHYSICS_H[0]}
    for r in runs:
        r["error_own"] = errors(r, ref[r["side"]])
        r["error_other"] = errors(r, ref[OTHER[r["side"]]])
    return runs


def _ms(x: float | None) -> str:
    return f"{1e3 * x:8.3f} ms" if x is not None else f"{'-':>11}"


def _us(x: float | None) -> str:
    return f"{1e6 * x:9.3f} us" if x is not None else f"{'-':>12}"


def print_physics(runs: list[dict]) -> None:
    print(f"{'side':<10} {'h':>6} {'1st impact':>11} {'1st rev':>11} {'2 revs':>11} "
          f"{'max pen':>9} {'pen/c':>7} {'loop':>8} {'err 2r own':>12} "
          f"{'err 2r other':>12}")  # fmt: skip
    for r in runs:
        ms = [_ms(r[k]) for k in ("first_impact", "first_revolution", "two_revolutions")]
        print(f"{r['run']:<10} {r['h']:>6g} {ms[0]} {ms[1]} {ms[2]} {r['max_penetration']:>9.2e} "
              f"{r['max_penetration_c']:>7.4f} {r['loop_time']:>6.1f} s "
              f"{_us(r['error_own']['two_revolutions'])} "
              f"{_us(r['error_other']['two_revolutions'])}")  # fmt: skip


def accuracy_target(runs: list[dict]) -> dict:
    """nlpmbd at h = 1e-4 against Siconos at h = 1e-5, errors against their own references."""
    ours = next(r for r in runs if r["side"] == "nlpmbd" and r["h"] == 1e-4)
    peer = next(r for r in runs if r["side"] == "siconos" and r["h"] == 1e-5)
    out = {"nlpmbd_h": 1e-4, "siconos_h": 1e-5, "metric": "two_revolutions"}
    for ref in ("error_own", "error_other"):
        a, b = ours[ref]["two_revolutions"], peer[ref]["two_revolutions"]
        out[ref] = {"nlpmbd": ours[ref], "siconos": peer[ref],
                    "holds": None if a is None or b is None else a <= b}  # fmt: skip
    out["holds"] = out["error_own"]["holds"]
    return out


def print_target(t: dict) -> None:
    word = {True: "HOLDS", False: "does NOT hold", None: "undetermined"}
    own, cross = ({s: _us(t[k][s]["two_revolutions"]).strip() for s in ("nlpmbd", "siconos")}
                  for k in ("error_own", "error_other"))  # fmt: skip
    print(f"target (two-revolution time error, nlpmbd h=1e-4 <= Siconos h=1e-5, each against its "
          f"own h=1e-6 run): {word[t['holds']]}: {own['nlpmbd']} vs {own['siconos']} "
          f"[against the other side's h=1e-6 run: {cross['nlpmbd']} vs {cross['siconos']}, "
          f"{word[t['error_other']['holds']]}]")  # fmt: skip


def physics(args) -> dict:
    """Accuracy of each side at h = 1e-5 and 1e-4 against h = 1e-6 runs (paper variant)."""
    t_end = args.physics_t_end
    hs = ", ".join(f"{h:g}" for h in PHYSICS_H)
    print(f"\nphysics, t_end = {t_end:g} s, h = {hs} (one run each; errors against the "
          f"h = {PHYSICS_H[0]:g} run of the same side (own) and of the other side)")  # fmt: skip
    runs = physics_runs(args)
    print_physics(runs)
    target = accuracy_target(runs)
    print_target(target)
    out = {"t_end": t_end, "reference_h": PHYSICS_H[0], "runs": runs, "target": target}
    pick = {(r["side"], r["h"]): r for r in runs}  # the keys of the former one-run report
    out.update({"siconos": pick["siconos", 1e-5], "nlpmbd qp": pick["nlpmbd", 1e-5],
                "nlpmbd qp 1e-4": pick["nlpmbd", 1e-4]})  # fmt: skip
    return out
