"""What a model file cannot do to the machine or to the figures (issue "Nothing mixed, nothing
overwritten", items 7 and 9): a file of thousands of bodies is refused before anything is
built; names with Matplotlib's "$...$" markup are drawn as they are written."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from matplotlib import cbook

from nlpmbd import InputError, SimulationOptions, simulate
from nlpmbd.io.model_file import MAX_ENTRIES, load_model
from nlpmbd.plots.figures import figure_specs, plot_result, render
from nlpmbd_joints.registry import JOINTS

BODY = '[[bodies]]\nname = "b{k}"\nmass = 1.0\ninertia = [1e-3, 1e-3, 1e-3]\n'
JOINT = (
    '[[joints]]\ntype = "spherical"\nname = "j{k}"\nparent = "GROUND"\nchild = "b0"\n'
    "point = [0.0, 0.0, 0.0]\n"
)


def _write(path: Path, bodies: int, joints: int = 0) -> Path:
    text = "".join(BODY.format(k=k) for k in range(bodies))
    path.write_text(text + "".join(JOINT.format(k=k) for k in range(joints)))
    return path


@pytest.mark.parametrize(("bodies", "joints", "section"), [(3000, 0, "bodies"), (2, 501, "joints")])
def test_a_model_file_of_too_many_entries_is_refused_before_building(
    tmp_path, bodies, joints, section
):
    path = _write(tmp_path / "big.toml", bodies, joints)
    tic = time.perf_counter()
    with pytest.raises(InputError) as err:
        load_model(path, joints=JOINTS, options=SimulationOptions)
    assert time.perf_counter() - tic < 10.0  # 3000 bodies took minutes and GBs to set up
    message = str(err.value)
    assert message.startswith(f"{path}: {section}: ") and "\n" not in message
    assert f"at most {MAX_ENTRIES} [[{section}]] entries, got {max(bodies, joints)}" in message


def test_a_model_file_at_the_limit_is_read(tmp_path):
    model = load_model(_write(tmp_path / "many.toml", MAX_ENTRIES), joints=JOINTS)
    assert len(model.system.bodies) == MAX_ENTRIES


MARKUP = """
[model]
name = "markup"
[[bodies]]
name = "$\\\\frac{a}$ arm"
mass = 1.0
inertia = [2e-3, 0.085, 0.085]
position = [0.5, 0.0, 0.0]
[[joints]]
type = "revolute_clearance"
name = "$\\\\sqrt{$ pin"
hole = "$\\\\frac{a}$ arm"
pin = "GROUND"
center = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
length = 0.05
hole_radius = 0.0101
pin_radius = 0.01
axial_play = 0.0
[[loads]]
type = "torque"
name = "$^$"
body = "$\\\\frac{a}$ arm"
value = [0.0, 0.0, 0.1]
"""


@pytest.mark.slow
def test_names_with_mathtext_markup_are_drawn_as_written(tmp_path):
    """Matplotlib reads "$...$" as mathematics: such a body or joint name stopped the drawing
    of the figures (after the result was saved) with a ValueError."""
    path = tmp_path / "markup.toml"
    path.write_text(MARKUP)
    system = load_model(path, joints=JOINTS).system
    options = SimulationOptions(t_end=0.01, h_min=1e-3, h_max=1e-3, solver="qp", codegen="off")
    result = simulate(system, options)
    names = {"$\\frac{a}$ arm", "$\\sqrt{$ pin", "$\\frac{a}$ arm (ref $x$)"}
    figures = plot_result(
        result, tmp_path / "fig", overlay=result, overlay_label="ref $x$", figures="all"
    )
    clearance = [p.stem for p in figures if p.stem.startswith("clearance_")]
    assert {p.stem for p in figures} >= {"positions", "joint_forces"} and len(clearance) == 1
    shown = set()
    for spec in figure_specs(result, result, "ref $x$"):
        fig = render(result, spec)
        for ax in fig.axes:
            legend = ax.get_legend()
            for text in legend.get_texts() if legend else []:
                assert not cbook.is_math_text(text.get_text())
                shown.add(text.get_text().replace("\\$", "$"))
    assert names <= shown
