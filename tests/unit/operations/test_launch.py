"""The console scripts name the extra they need instead of failing on an import."""

from __future__ import annotations

import importlib.util

import pytest

from pixservice import launch


@pytest.mark.parametrize(
    ("command", "extra", "absent"), [("pixweb", "web", "litestar"), ("pixnotify", "notify", "aiohttp")]
)
def test_a_command_without_its_extra_names_the_extra_and_exits_2(
    command: str, extra: str, absent: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == absent else find_spec(name))

    with pytest.raises(SystemExit) as exited:
        getattr(launch, command)()

    assert exited.value.code == 2
    assert capsys.readouterr().err == (
        f"{command} needs the {extra!r} extra of pixservice ({absent} not installed):"
        f" pip install 'pixservice[{extra}]'\n"
    )


@pytest.mark.parametrize("command", sorted(launch.NEEDS))
def test_with_its_extra_installed_a_command_starts(command: str) -> None:
    launch.require(command)  # the development environment has every extra: no exit


def test_the_scripts_are_the_launchers() -> None:
    from importlib.metadata import entry_points

    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts") if ep.name in launch.NEEDS}
    assert scripts == {name: f"pixservice.launch:{name}" for name in launch.NEEDS}
