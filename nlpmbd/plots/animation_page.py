"""The HTML page of an animation: meshcat's viewer bundle inlined, the packed commands as
base64 strings replayed in order, a caption (what is drawn, the magnification rule, the
arrows' scale, the time) and `window.nlpmbd` for scripts and tests: seek(t), play(),
duration, capture() (a PNG data URL of the canvas)."""

from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path

from ..io.outdir import atomic_write
from .animation_build import AnimationData

_STYLE = """
body { margin: 0; font: 12px/1.3 system-ui, sans-serif; }
#meshcat-pane { width: 100vw; height: 100vh; overflow: hidden; }
#nlpmbd-caption { position: absolute; left: 10px; top: 10px; max-width: 430px;
  background: rgba(255,255,255,0.86); border-radius: 6px; padding: 8px 11px; color: #222; }
#nlpmbd-caption h1 { font-size: 14px; margin: 0 0 4px 0; }
#nlpmbd-caption p { margin: 3px 0; }
#nlpmbd-time { font-variant-numeric: tabular-nums; font-weight: 600; }
.nlpmbd-swatch { display: inline-block; width: 10px; height: 10px; margin: 0 3px 0 8px;
  border-radius: 2px; vertical-align: baseline; }
"""

_SCRIPT = """
var viewer = new MeshCat.Viewer(document.getElementById("meshcat-pane"));
(function () {
  const setup = %(setup)s;
  function bytes(text) {
    const raw = atob(text), out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }
  for (const command of setup.commands) viewer.handle_command_bytearray(bytes(command));
  const animator = viewer.animator;
  animator.mixer.timeScale = setup.speed;
  const folders = viewer.gui.__folders;
  if (folders.Scene) folders.Scene.close();
  viewer.gui.open();
  const clock = document.getElementById("nlpmbd-time");
  function tick() {
    clock.textContent = "t = " + (setup.t0 + animator.time).toFixed(3) + " s";
    requestAnimationFrame(tick);
  }
  tick();
  window.nlpmbd = {
    duration: animator.duration,
    seek: function (t) {
      animator.pause();
      animator.seek(t);
      animator.display_progress(t);
      viewer.render();
    },
    play: function () { animator.play(); },
    capture: function () { return viewer.capture_image(); },
  };
})();
"""


def viewer_bundle() -> str:
    """meshcat's viewer (three.js inside), from the installed meshcat package."""
    import meshcat

    path = Path(meshcat.viewer_assets_path()) / "dist" / "main.min.js"
    text = path.read_text(encoding="utf-8")
    return text.replace("</script", "<\\/script")


def caption(data: AnimationData, title: str) -> str:
    """What the page shows, in a few lines of HTML."""
    esc = html.escape
    named = [(b.name, b.color) for b in data.scene.bodies]
    swatches = "".join(
        f'<span class="nlpmbd-swatch" style="background:#{color:06x}"></span>{esc(name)}'
        for name, color in named + [(d.name, d.color) for d in data.flexible]
    )
    lines = [f"<h1>{esc(title)} &nbsp; <span id='nlpmbd-time'></span></h1>", f"<p>{swatches}</p>"]
    loose = [lk for lk in data.scene.links if lk.loose]
    if loose:
        c = max(lk.clearance for lk in loose)
        k = data.motion.magnify
        how = (
            "given"
            if data.magnify_given
            else "default: largest clearance drawn as 5% of the mechanism"
            + (", at most 10% of a flexible body's height" if data.scene.nodes.faces else "")
        )
        bodies = (
            "bodies translated to match (open chain)"
            if all(data.motion.tree)
            else "bodies at their computed poses (closed loop)"
            if not any(data.motion.tree)
            else "bodies translated to match in open chains, at computed poses in closed loops"
        )
        lines.append(
            f"<p><b>Clearance &times;{k:g}</b> ({how}; largest c = {c:.3g} m): each pin, ball "
            f"or slider is drawn {k:g}&times; farther from its hole's centre than computed, in a "
            f"hole of radius r + {k:g} c; {bodies}; orientations as computed.</p>"
        )
    lines += _flexible_lines(data)
    if data.contacts.labels:
        lines.append(
            "<p><b>Arrows</b>: contact normal forces on the moving bodies (largest within each "
            f"frame), full length at &ge; {data.contacts.reference:.3g} N, shorter in "
            "proportion.</p>"
        )
    if data.ghost is not None:
        lines.append(f"<p><b>Translucent</b>: {esc(data.ghost.label)}, at the same times.</p>")
    if not data.scene.from_system:
        lines.append("<p>Case not rebuilt: bodies drawn as cubes, joints not drawn.</p>")
    lines.append(
        "<p>Controls, top right: Animations &rarr; play, pause, reset, time, timeScale "
        "(playback speed; 1 = real time). Drag to orbit, scroll to zoom.</p>"
    )
    return "\n".join(lines)


def _flexible_lines(data: AnimationData) -> list[str]:
    """The flexible bodies' magnifications (animation_flexible.py)."""
    out, k = [], data.motion.magnify
    for d in data.flexible:
        how = (
            "given"
            if data.deform_given
            else "default: largest deformation drawn as 10% of its height"
        )
        where = " along its guide" if d.across else ""
        text = (
            f"<p><b>{html.escape(d.name)}</b> (flexible: element edges and nodes), "
            f"<b>deformation &times;{d.deform:g}</b> ({how}; largest{where} {d.largest:.3g} m): "
            f"each node drawn at the mean motion plus {d.deform:g}&times; its displacement from "
            "the translated reference mesh"
        )
        if d.across:
            c = max(f.clearance for f in data.scene.nodes.faces if f.body == d.name)
            how = (
                "given"
                if data.magnify_given
                else "default: largest clearance 5% of the mechanism, at most 10% of its height"
            )
            text += (
                f"; across its guide (c = {c:.3g} m) its offset and deformation &times;{k:g} "
                f"(<b>clearance &times;{k:g}</b>, {how}), so that each node's drawn gap to a face "
                f"is {k:g}&times; the computed one"
            )
        out.append(text + ".</p>")
    return out


def page(data: AnimationData, packed: list[bytes], title: str, speed: float = 1.0) -> str:
    """The self-contained HTML page."""
    setup = {
        "commands": [base64.b64encode(c).decode("ascii") for c in packed],
        "speed": float(speed),
        "t0": float(data.motion.times[0]),
    }
    return (
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset='utf-8'>\n"
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        "<div id='meshcat-pane'></div>\n"
        f"<div id='nlpmbd-caption'>{caption(data, title)}</div>\n"
        f"<script>\n{viewer_bundle()}\n</script>\n"
        f"<script>{_SCRIPT % {'setup': json.dumps(setup)}}</script>\n"
        "</body>\n</html>\n"
    )


def write_page(path: str | os.PathLike, text: str) -> Path:
    """Write the page atomically (a partial file never replaces a good one)."""
    out = Path(path)
    atomic_write(out, lambda fh: fh.write(text.encode("utf-8")))
    return out
