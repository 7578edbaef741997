"""The run's check for processes left behind finds them: a child still running, and a process that
names the run's folder whoever its parent is; and not one that has exited or was there before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.processes import leftover_processes, stop_popen

SLEEP = [sys.executable, "-c", "import time, sys; time.sleep(120)"]


def test_a_child_still_running_is_left_behind(tmp_path: Path) -> None:
    child = subprocess.Popen(SLEEP)
    try:
        assert child.pid in {process.pid for process in leftover_processes(tmp_path, set())}
        assert child.pid not in {process.pid for process in leftover_processes(tmp_path, {child.pid})}
    finally:
        stop_popen(child, "sleep")
    assert child.pid not in {process.pid for process in leftover_processes(tmp_path, set())}


def test_a_process_naming_the_runs_folder_is_left_behind_whoever_its_parent_is(tmp_path: Path) -> None:
    # A grandchild whose parent exits at once: reparented, as a daemonized PostgreSQL is.
    marker = tmp_path / "data"
    spawn = f"import subprocess, sys; subprocess.Popen({[*SLEEP, str(marker)]!r}, start_new_session=True)"
    subprocess.run([sys.executable, "-c", spawn], check=True)
    other = tmp_path.parent / (tmp_path.name + "-other")  # a folder whose name only starts the same
    try:
        left = leftover_processes(tmp_path, set())
        assert any(str(marker) in " ".join(process.cmdline()) for process in left)
        assert not any(
            str(marker) in " ".join(p.cmdline()) for p in leftover_processes(other, set()) if p.ppid() == 1
        )
    finally:
        for process in leftover_processes(tmp_path, set()):
            process.kill()
