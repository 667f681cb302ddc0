"""Issue 12: nothing lost. A kill between the two file writes, write errors of every kind, two
runs into one directory, --resume keeping its checkpoint interval, file permissions, stale
figures, Ctrl-C while plotting, messages."""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nlpmbd import SimulationResult
from nlpmbd.apps.cli import main

SHORT = ["--t-end", "0.005", "--no-plot", "--quiet"]


def _python(code: str, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=300,
        **kw,
    )


#: A run whose writer is killed (SIGKILL) right after result.npz is renamed into place, before
#: meta.json is: the kill is injected in the writer, not timed.
KILLED_RUN = """
    import os, signal, sys
    import nlpmbd.io.files as files
    real = files.atomic_write
    def write(path, fn):
        real(path, fn)
        if path.name == "result.npz":
            os.kill(os.getpid(), signal.SIGKILL)
    files.atomic_write = write
    from nlpmbd.apps.cli import main
    sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_a_kill_between_the_two_writes_leaves_a_readable_and_resumable_result(tmp_path):
    out = tmp_path / "run"
    # the first checkpoint of a run: every wall second is a checkpoint; the QP path checkpoints
    # between chunks (chained into groups of up to 8, run/chunks.py), so short ones leave steps
    # for the resumed run
    args = ["run", "revolute", "--t-end", "0.3", "--checkpoint-every", "1e-9"]
    args += ["--chunk-steps", "8"]
    proc = _python(KILLED_RUN, *args, "--out", str(out), "--no-plot", "--quiet")
    assert proc.returncode == -signal.SIGKILL
    assert (out / "result.npz").is_file() and not (out / "meta.json").exists()
    assert main(["plot", str(out)]) == 0
    partial = SimulationResult.load(out)
    assert not partial.completed and partial.n_steps > 0
    # a resumed run killed at the same moment, its meta.json an earlier state of the same run
    proc = _python(KILLED_RUN, "run", "revolute", "--resume", str(out), "--no-plot", "--quiet")
    assert proc.returncode == -signal.SIGKILL
    assert SimulationResult.load(out).n_steps > partial.n_steps
    assert main(["run", "revolute", "--resume", str(out), "--no-plot", "--quiet"]) == 0
    assert SimulationResult.load(out).completed


def test_reindented_meta_and_leftover_temporaries_are_accepted(tmp_path):
    out = tmp_path / "run"
    assert main(["run", "revolute", *SHORT, "--out", str(out)]) == 0
    meta = json.loads((out / "meta.json").read_text())
    (out / "meta.json").write_text(json.dumps(meta, indent=7))
    (out / ".result.npz.x1y2.tmp").write_bytes(b"half a file")
    assert SimulationResult.load(out).completed
    assert main(["run", "revolute", *SHORT, "--out", str(out)]) == 0
    assert not (out / ".result.npz.x1y2.tmp").exists()  # the next write cleans up


@pytest.mark.slow
def test_result_files_get_the_normal_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        assert main(["run", "revolute", *SHORT[:2], "--quiet", "--out", str(tmp_path / "r")]) == 0
    finally:
        os.umask(old)
    for name in ("result.npz", "meta.json", "energy.png"):
        assert stat.S_IMODE((tmp_path / "r" / name).stat().st_mode) == 0o644, name


def _fail_on_call(n: int, code: int, where: Path | None = None):
    """A writer that fails with OSError(code) from its n-th call on (earlier calls write), in
    directory `where` only (None: everywhere)."""
    import nlpmbd.io.files as files

    real, calls = files.atomic_write, [0]

    def write(path, fn):
        if where is None or path.parent == where:
            calls[0] += 1
            if calls[0] >= n:
                raise OSError(code, os.strerror(code))
        real(path, fn)

    return write


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EFBIG, errno.EROFS])
def test_a_write_error_during_the_run_keeps_the_last_good_checkpoint(
    tmp_path, monkeypatch, capsys, code
):
    out = tmp_path / "run"
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))  # the rescue goes there
    # calls 1-2: the first checkpoint (npz, meta.json); 3: the second checkpoint fails
    monkeypatch.setattr("nlpmbd.io.files.atomic_write", _fail_on_call(3, code, out))
    args = ["run", "revolute", "--t-end", "0.05", "--checkpoint-every", "1e-9", "--out", str(out)]
    assert main([*args, "--no-plot", "--quiet"]) == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and os.strerror(code) in err[0]
    assert "last good result" in err[0] and "nlpmbd-rescue-" in err[0]
    kept = SimulationResult.load(out)
    assert not kept.completed and kept.n_steps >= 1
    rescued = Path(err[0].rsplit(" is saved in ", 1)[1].split(";")[0])
    assert rescued.parent == tmp_path / "tmp"
    assert SimulationResult.load(rescued).n_steps >= kept.n_steps


def test_a_write_error_at_the_end_rescues_the_result(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("nlpmbd.io.files.atomic_write", _fail_on_call(1, errno.ENOSPC))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    # the rescue copy cannot be written either (the same patched writer): nothing was saved
    assert main(["run", "revolute", *SHORT, "--out", str(tmp_path / "run")]) == 4
    err = capsys.readouterr().err.strip()
    assert "No space left on device" in err and "nothing could be saved" in err
    assert list((tmp_path / "tmp").iterdir()) == []  # no empty rescue directory left behind


@pytest.mark.slow
def test_the_file_size_limit_is_a_write_error(tmp_path):
    """EFBIG from `ulimit -f`: the run ends with exit 4 and one line, no traceback."""
    out = tmp_path / "run"
    script = (
        f"trap '' XFSZ; ulimit -f 8; exec {sys.executable} -m nlpmbd run revolute "
        f"--t-end 0.2 --out {out} --no-plot --quiet"
    )
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))  # where the rescue would go
    proc = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 4, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "File too large" in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.parametrize("where", ["file", "under-file", "read-only"])
def test_an_unwritable_out_is_refused_before_simulating(tmp_path, capsys, monkeypatch, where):
    target = tmp_path / "x"
    if where == "file":
        target.write_text("not a directory")
    elif where == "under-file":
        (tmp_path / "f").write_text("")
        target = tmp_path / "f" / "run"
    else:
        target.mkdir()
        target.chmod(0o555)
        if os.access(target, os.W_OK):  # root ignores the mode: a read-only file system then

            def read_only(*args, **kwargs):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS))

            monkeypatch.setattr("tempfile.mkstemp", read_only)
    assert main(["run", "revolute", *SHORT, "--out", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and str(target) in err[0]


def test_plot_and_resume_of_an_unwritable_directory_exit_2(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    assert main(["run", "revolute", *SHORT, "--out", str(out)]) == 0

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr("tempfile.mkstemp", read_only)  # the writability probe
    assert main(["plot", str(out)]) == 2
    assert main(["run", "revolute", "--resume", str(out), "--quiet"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all("Read-only file system" in line for line in lines)


@pytest.mark.slow
def test_a_second_run_into_a_locked_directory_names_the_holder(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from nlpmbd.io.outdir import OutputLock\n"
            f"with OutputLock({str(out)!r}):\n    print('locked', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert main(["run", "revolute", *SHORT, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"process {holder.pid}" in err and "in use" in err
    finally:
        holder.kill()
        holder.wait()
    # the holder was killed: its lock is stale and the directory usable
    assert main(["run", "revolute", *SHORT, "--out", str(out)]) == 0


def test_resume_keeps_the_checkpoint_interval_unless_given(tmp_path, monkeypatch):
    out = tmp_path / "run"
    assert main(["run", "revolute", "--t-end", "0.05", "--checkpoint-every", "7", "--out",
                 str(out), "--no-plot", "--quiet"]) == 0  # fmt: skip
    meta = json.loads((out / "meta.json").read_text())
    assert meta["options"]["output"]["checkpoint_every"] == 7.0
    seen = []
    import nlpmbd.run.simulate as simulate_module

    real = simulate_module.simulate

    def spy(system, options, **kw):
        seen.append(options.output.checkpoint_every)
        raise KeyboardInterrupt  # stop at once: only the interval matters

    monkeypatch.setattr(simulate_module, "simulate", spy)
    meta["completed"] = False
    from fixtures import reseal

    def partial(m):
        m["completed"] = False
        m["resume"] = {"n_steps": m["summary"]["steps"], "h_next": 1e-3, "counters": {}}

    reseal(out, partial)
    assert main(["run", "revolute", "--resume", str(out), "--no-plot", "--quiet"]) == 130
    assert main(["run", "revolute", "--resume", str(out), "--checkpoint-every", "3",
                 "--no-plot", "--quiet"]) == 130  # fmt: skip
    assert seen == [7.0, 3.0]
    assert real is not spy


@pytest.mark.slow
def test_a_new_run_removes_the_figures_of_the_earlier_one(tmp_path):
    out = tmp_path / "run"
    (tmp_path / "run").mkdir()
    (out / "notes.png").write_bytes(b"the user's own file")
    clearance = ["run", "pendulum", "--set", "joint=clearance", "--t-end", "0.005"]
    assert main([*clearance, "--out", str(out), "--quiet"]) == 0
    assert (out / "contacts.png").is_file()
    assert main(["run", "pendulum", "--t-end", "0.005", "--out", str(out), "--quiet"]) == 0
    assert not (out / "contacts.png").exists() and (out / "energy.png").is_file()
    assert (out / "notes.png").read_bytes() == b"the user's own file"
    assert main(["run", "pendulum", *SHORT, "--out", str(out)]) == 0  # --no-plot
    assert not (out / "energy.png").exists()


def test_ctrl_c_while_plotting_exits_130_without_a_traceback(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("nlpmbd.plots.figures.plot_result", interrupted)
    before = signal.getsignal(signal.SIGINT)
    assert main(["run", "revolute", "--t-end", "0.005", "--quiet", "--out", str(tmp_path)]) == 130
    assert signal.getsignal(signal.SIGINT) is before  # the run's handler is gone again
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "interrupted" in err[0]


def test_importing_the_command_line_loads_no_numerical_package():
    code = "import sys, nlpmbd.apps.cli; print(sorted({'casadi', 'numpy'} & set(sys.modules)))"
    assert _python(code).stdout.strip() == "[]"


def test_overlay_of_another_case_is_refused(tmp_path, capsys):
    other = tmp_path / "box"
    assert main(["run", "box_drop", *SHORT, "--out", str(other)]) == 0
    code = main(["run", "revolute", *SHORT, "--out", str(tmp_path / "r"), "--overlay", str(other)])
    assert code == 2 and "nothing would be drawn" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["run", "pendulum", "--h", "-1e-3"], "--h must be in (0.0, inf), got -0.001"),
        (["run", "x" * 100000], "unknown case"),
        (["run", "pendulum", "--set", "y" * 100000 + "=1"], "unknown parameter"),
        (
            ["run", "pendulum", "--set", "joint=clearance", "--set", "pin_radius=1e300"],
            "pin_radius",
        ),
        (["run", "pendulum", "--set", "clearance=1e-4"], "has no effect with joint=ideal"),
        (
            ["run", "pendulum", "--solver", "nlp", "--codegen", "on"],
            "codegen=on applies to solver=qp",
        ),
    ],
)
def test_messages_name_what_is_wrong_in_one_short_line(argv, fragment, capsys, tmp_path):
    assert main([*argv, "--quiet", "--no-plot", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0] and len(err[0]) < 400, err
