"""`nlpmbd animate DIR`: the self-contained 3-D page (meshcat's viewer, no network), its
clearance magnification rule, the GIF, bad input, and the page in a real headless browser
(Debian's chromium driven by selenium; skipped when either is absent).

NLPMBD_ANIMATION_SCREENSHOT=docs/animation.png pytest tests/test_animation.py -k browser
also simulates the four-bar with loose pins and saves the page's screenshot there.
"""

from __future__ import annotations

import base64
import io
import os
import time
from pathlib import Path

import numpy as np
import pytest

from nlpmbd import SimulationOptions, SimulationResult, simulate
from nlpmbd.apps import cli_animate
from nlpmbd.apps.cli_parser import Parser
from nlpmbd.apps.registry import get_case
from nlpmbd.errors import InputError

pytest.importorskip("meshcat", reason="nlpmbd animate needs meshcat: pip install meshcat")

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
BROWSER_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--enable-unsafe-swiftshader", "--window-size=1280,800",
)  # fmt: skip


def _run(case: str, overrides: dict, t_end: float, h: float, out: Path) -> Path:
    """Simulate a case and save it as `nlpmbd run` would (case and parameters in meta)."""
    system, params = get_case(case).build(overrides)
    options = SimulationOptions(t_end=t_end, h_min=h, h_max=h)
    simulate(system, options, meta={"case": case, "parameters": params}).save(out)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A pendulum with a 1 cm clearance (it rides on the hole, with impacts) and its ideal run."""
    base = tmp_path_factory.mktemp("animate")
    loose = {"joint": "clearance", "clearance": 0.01}
    return {
        "loose": _run("pendulum", loose, 0.6, 2e-3, base / "loose"),
        "ideal": _run("pendulum", {}, 0.6, 2e-3, base / "ideal"),
    }


def _animate(*argv: str) -> int:
    parser = Parser(prog="nlpmbd animate")
    cli_animate.add_arguments(parser)
    return cli_animate.run(parser.parse_args(list(argv)))


def test_page_is_one_self_contained_file(runs, capsys) -> None:
    out = runs["loose"].parent / "page.html"
    assert _animate(str(runs["loose"]), "--out", str(out), "--overlay", str(runs["ideal"])) == 0
    text = out.read_text()
    assert "clearances x5" in capsys.readouterr().out  # 5% of ~1 m over c = 1 cm
    assert "<script src" not in text and "<link" not in text  # everything inlined
    assert "MeshCat.Viewer" in text and "Clearance &times;5" in text and "Translucent" in text
    assert 0.5e6 < len(text) < 5e6


def test_magnification_rule_open_chain(runs) -> None:
    """Pendulum (pin fixed to the ground, hole in the pendulum): the pin is drawn K e from the
    hole's drawn centre, and the pendulum is translated by -(K - 1) e to match."""
    from nlpmbd.plots.animation_build import build

    result = SimulationResult.load(runs["loose"])
    scene, note = cli_animate.rebuild_scene(result)
    assert note == "" and [lk.kind for lk in scene.links] == ["pin"]
    data = build(result, scene, magnify=7.0)
    m, link = data.motion, scene.links[0]
    assert m.tree == [True]
    e = m.offset[:, 0]
    assert np.max(np.linalg.norm(e, axis=1)) > 0.5 * link.clearance  # it does rattle
    np.testing.assert_allclose(m.shift[:, 0], -6.0 * e, atol=1e-12)
    hole_drawn = m.point_parent[:, 0] + m.shift[:, 0]
    np.testing.assert_allclose(
        m.journal[:, 0] - hole_drawn,
        7.0 * e + (m.point_child[:, 0] - m.point_parent[:, 0] - e),
        atol=1e-12,
    )


def test_magnification_rule_closed_loop() -> None:
    """Four-bar with loose pins: a loop, so the bodies stay where computed and only the journals
    are drawn K times off."""
    from nlpmbd.plots.animation_frames import motion
    from nlpmbd.plots.animation_scene import scene_from_system

    system, _ = get_case("four_bar").build({"clearance_at": "all"})
    scene = scene_from_system(system)
    q0, _ = system.initial_state()
    rng = np.random.default_rng(1)
    q = np.tile(q0, (5, 1))
    for b in range(3):
        q[:, 7 * b : 7 * b + 2] += 1e-4 * rng.standard_normal((5, 2))
    pos, quat = q.reshape(5, 3, 7)[:, :, :3], q.reshape(5, 3, 7)[:, :, 3:]
    m = motion(scene, np.linspace(0, 1, 5), pos, quat, 40.0)
    assert m.tree == [False, False, False]
    assert np.all(m.shift == 0) and np.allclose(m.pos, pos)
    np.testing.assert_allclose(m.journal, m.point_child + 39.0 * m.offset, atol=1e-12)
    assert np.max(np.abs(m.offset)) > 1e-5


def test_default_magnification() -> None:
    from nlpmbd.plots.animation_frames import default_magnify
    from nlpmbd.plots.animation_scene import scene_from_system

    scene = scene_from_system(get_case("pendulum").build({"joint": "clearance"})[0])
    assert default_magnify(scene, 1.0) == 500.0  # 0.05 m / 1e-4 m
    assert default_magnify(scene, 0.7) == 200.0  # 350 rounded down to 1, 2, 5 x 10^k
    assert default_magnify(scene_from_system(get_case("pendulum").build({})[0]), 1.0) == 1.0


def test_gif(runs, tmp_path) -> None:
    from PIL import Image

    from nlpmbd.plots.animation_build import build
    from nlpmbd.plots.animation_gif import write_gif

    result = SimulationResult.load(runs["loose"])
    data = build(result, cli_animate.rebuild_scene(result)[0])
    path = write_gif(data, tmp_path / "a.gif", max_frames=6)
    with Image.open(path) as image:
        assert image.format == "GIF" and image.n_frames == 6


def test_bad_input(runs, tmp_path) -> None:
    cases = {
        "DIR": [str(tmp_path / "missing")],
        "result.npz": [str(tmp_path)],
        "--magnify must be a number in [1, 1e+09]": [str(runs["loose"]), "--magnify", "0.5"],
        "--fps must be a number": [str(runs["loose"]), "--fps", "fast"],
        "--overlay": [str(runs["loose"]), "--overlay", str(tmp_path / "nope")],
        "--out": [str(runs["loose"]), "--out", str(tmp_path / "no" / "a.html")],
    }
    for words, argv in cases.items():
        with pytest.raises(InputError, match=None) as err:
            _animate(*argv)
        assert words in str(err.value) and "\n" not in str(err.value)
    other = _run("free_body", {}, 0.01, 1e-3, tmp_path / "free")
    with pytest.raises(InputError, match="not the bodies of DIR"):
        _animate(str(runs["loose"]), "--overlay", str(other))


def test_unknown_case_draws_cubes(runs, tmp_path) -> None:
    result = SimulationResult.load(runs["loose"])
    result.meta["case"] = "no_such_case"
    scene, note = cli_animate.rebuild_scene(result)
    assert "not installed" in note and not scene.from_system and scene.links == []


def _chrome(profile: Path):
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip(
            "the browser test needs Debian's chromium: apt-get install chromium chromium-driver"
        )
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="the browser test needs selenium: pip install selenium"
    )
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*BROWSER_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def _picture(driver, t: float) -> np.ndarray:
    from PIL import Image

    driver.execute_script("window.nlpmbd.seek(arguments[0]);", t)
    url = driver.execute_script("return window.nlpmbd.capture();")
    raw = base64.b64decode(url.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"), dtype=float)


@pytest.mark.slow
def test_page_in_a_headless_browser(runs, tmp_path) -> None:
    tic = time.perf_counter()
    page = tmp_path / "page.html"
    assert _animate(str(runs["loose"]), "--out", str(page), "--overlay", str(runs["ideal"])) == 0
    driver = _chrome(tmp_path / "chrome-profile")
    try:
        driver.get(page.as_uri())
        duration = driver.execute_script("return window.nlpmbd && window.nlpmbd.duration;")
        assert duration == pytest.approx(0.6, rel=1e-3)
        assert driver.execute_script("return performance.getEntriesByType('resource').length;") == 0
        early, late = _picture(driver, 0.05), _picture(driver, 0.55)
        background = early[0, 0]
        colours = early.astype(np.int64) @ np.array([65536, 256, 1])
        assert len(np.unique(colours)) > 20
        assert np.mean(np.any(np.abs(early - background) > 30, axis=2)) > 0.01  # not blank
        assert np.mean(np.any(np.abs(early - late) > 30, axis=2)) > 0.005  # it moved
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        if os.environ.get("NLPMBD_ANIMATION_SCREENSHOT"):
            _screenshot(driver, tmp_path, Path(os.environ["NLPMBD_ANIMATION_SCREENSHOT"]))
    finally:
        driver.quit()
    assert time.perf_counter() - tic < 60


def _screenshot(driver, tmp_path: Path, out: Path) -> None:
    """The four-bar with loose pins, at a moment with contact forces, for the README."""
    run = _run("four_bar", {"clearance_at": "all", "clearance": 5e-4}, 0.5, 5e-4, tmp_path / "fb")
    page = tmp_path / "fb.html"
    assert _animate(str(run), "--out", str(page)) == 0
    metrics = {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    driver.get(page.as_uri())
    driver.execute_script("window.nlpmbd.seek(0.31);")
    time.sleep(0.3)
    out.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(out))
