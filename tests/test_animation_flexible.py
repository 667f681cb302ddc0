"""`nlpmbd animate` of a flexible body (plots/animation_flexible.py): the stick-slip slider as a
2 x 2 Q4 mesh in its guide. The page's edge tracks follow the drawn nodes, the drawn nodes are
the magnified ones (deformation x K_def along the guide, x K across it, so that each node's
drawn gap to a guide face is K times its computed gap), contact arrows sit at the drawn nodes.
The page in a real browser: tests/test_animation.py (the same tracks, scale ones included)."""

from __future__ import annotations

import numpy as np
import pytest

from nlpmbd import SimulationOptions, SimulationResult, simulate
from nlpmbd.apps import cli_animate
from nlpmbd.apps.registry import get_case

pytest.importorskip("meshcat", reason="nlpmbd animate needs meshcat: pip install meshcat")


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> SimulationResult:
    """0.6 s of the flexible stick-slip slider (seated on the lower face, pushed along)."""
    overrides = {"slider": "flexible", "elements": 4, "frequency": 3.0}
    system, params = get_case("stick_slip").build(overrides)
    options = SimulationOptions(t_end=0.6, h_min=2e-3, h_max=2e-3, solver="qp")
    result = simulate(system, options, meta={"case": "stick_slip", "parameters": params})
    out = tmp_path_factory.mktemp("flex") / "run"
    result.save(out)
    return SimulationResult.load(out)


def _rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate v (..., 3) by x y z w quaternions q (..., 4)."""
    u, w = q[..., :3], q[..., 3:]
    return v + 2 * np.cross(u, np.cross(u, v) + w * v)


def _build(result, **kw):
    from nlpmbd.plots.animation_build import build

    scene, note = cli_animate.rebuild_scene(result)
    assert note == "" and len(scene.nodes.faces) == 2  # the guide's lower and upper faces
    return build(result, scene, max_frames=60, **kw)


def test_edge_tracks_follow_the_drawn_nodes(run) -> None:
    from nlpmbd.plots.animation import commands, motion_tracks
    from nlpmbd.plots.animation_meshcat import animation_command

    data = _build(run)
    (d,) = data.flexible
    assert d.name == "slider" and len(d.edges) == 12 and d.nodes.shape == (60, 9, 3)
    tracks, _ = motion_tracks(data)
    lowered = animation_command(data.motion.times, tracks)
    clips = {item["path"]: item["clip"]["tracks"] for item in lowered["animations"]}
    for e, (a, b) in enumerate(d.edges):
        keys = {t["name"]: t["keys"] for t in clips[f"/nlpmbd/flexible/slider/e{e}"]}
        assert set(keys) == {".position", ".quaternion", ".scale"}
        for frame in (7, 51):
            mid, quat, scale = (np.array(keys[p][frame]["value"]) for p in keys)
            half = _rotate(quat, np.array([0.5 * scale[0] * d.length[e], 0.0, 0.0]))
            np.testing.assert_allclose(mid - half, d.nodes[frame, a], atol=1e-12)
            np.testing.assert_allclose(mid + half, d.nodes[frame, b], atol=1e-12)
    node = {t["name"]: t["keys"] for t in clips["/nlpmbd/flexible/slider/n4"]}
    assert np.allclose(node[".position"][51]["value"], d.nodes[51, 4])
    assert len(commands(data)) > 3 * len(d.edges)  # packed: every edge's box and its tracks


def test_drawn_nodes_are_magnified(run) -> None:
    """Along the guide the deformation K_def times (10% of the height at most), across it the
    offset and deformation K times: every node's drawn gap to a face is K times its gap."""
    from nlpmbd.plots.animation_flexible import node_frames, reference

    data = _build(run, magnify=30.0)
    (d,) = data.flexible
    x = node_frames(run.t, run.node_q, data.motion.times)
    d_along = x - reference(run.meta["flexible"][0])
    d_along = (d_along - d_along.mean(axis=1, keepdims=True))[..., 0]
    assert d.across and d.largest == pytest.approx(np.abs(d_along).max())
    assert d.largest * d.deform <= 0.1 * 0.5 < 2.5 * d.largest * d.deform and d.deform > 1
    np.testing.assert_allclose(
        d.nodes[..., 0] - x[..., 0], (d.deform - 1) * d_along, rtol=1e-9, atol=1e-12
    )
    assert data.motion.magnify == 30.0
    touching = 0
    for face, (centre, sides, rot) in zip(data.scene.nodes.faces, d.rails, strict=True):
        n = face.normal
        drawn_face = centre + 0.5 * sides[1] * rot[:, 1]  # the rail's surface toward the nodes
        drawn_gap = (d.nodes[:, face.nodes] - drawn_face) @ n
        gap = (x[:, face.nodes] - face.point[:2]) @ n[:2]
        np.testing.assert_allclose(drawn_gap, 30.0 * gap, atol=1e-9)
        touching += int(np.sum(np.abs(gap) < 1e-9))
    assert touching > 0  # contacts, drawn as contacts


def test_contact_arrows_at_the_drawn_nodes(run) -> None:
    """Each arrow: the node's contact point at the step of the frame's interval with the
    largest force, moved as its node is drawn."""
    from nlpmbd.plots.animation_contacts import _intervals

    data = _build(run)
    (d,) = data.flexible
    cs = data.contacts
    assert cs.labels and all(label.startswith(("lower", "upper")) for label in cs.labels)
    assert np.any(cs.active)
    labels = run.meta["contact_labels"]
    rows = _intervals(run.t, data.motion.times)
    for c, label in enumerate(cs.labels):
        node = data.scene.nodes.joints[label.split(".")[0]][1]
        for k in np.flatnonzero(cs.active[:, c]):
            lo, hi = rows[k]
            computed = run.contact_point[lo:hi, labels.index(label)]
            distance = np.linalg.norm(computed - (cs.point[k, c] - d.shift[k, node]), axis=1)
            assert distance.min() < 1e-12


def test_default_magnification_and_caption(run, tmp_path) -> None:
    """K: the guide's play drawn as at most 10% of the slider's height; the caption says so."""
    from nlpmbd.plots.animation import write_animation
    from nlpmbd.plots.animation_frames import default_magnify

    scene, _ = cli_animate.rebuild_scene(run)
    # the flexible slider has the rigid one's play, 2 c = 5 mm (nlpmbd_cases/stick_slip.py)
    assert default_magnify(scene, 2.0) == 10.0  # 0.1 x 0.5 m / 5 mm (< 0.05 x 2 m / 2 c)
    path, data = write_animation(run, scene, tmp_path / "a.html", title="flex", fps=10)
    text = path.read_text()
    assert "deformation &times;" in text and "clearance &times;10" in text
    assert data.flexible[0].color != 0 and "slider" in text


def test_without_guides_the_deformation_is_isotropic(run) -> None:
    """A result of an unknown case: the mesh from meta.json, no guide, deformation K_def."""
    from nlpmbd.plots.animation_build import build
    from nlpmbd.plots.animation_flexible import node_frames, reference

    run.meta["case"] = "no_such_case"
    try:
        scene, note = cli_animate.rebuild_scene(run)
        data = build(run, scene, max_frames=20, deform=50.0)
    finally:
        run.meta["case"] = "stick_slip"
    assert "not installed" in note
    (d,) = data.flexible
    x = node_frames(run.t, run.node_q, data.motion.times)
    u = x - reference(run.meta["flexible"][0])
    expected = x + 49.0 * (u - u.mean(axis=1, keepdims=True))
    assert not d.across and d.rails == []
    np.testing.assert_allclose(d.nodes[..., :2], expected, atol=1e-12)
