"""A supersede link that does not go both ways: an active memory says it supersedes one that
names another replacement (two supersedes at once in an older version, a merge), or none (it
was archived instead). ``tether doctor`` names the file and line of the link, exit 1."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult


def _hand_written(repo: Path, name: str, summary: str, supersedes: str) -> Path:
    path = repo / ".tether" / "memories" / f"{name}.md"
    text = f"---\ncategory: gotcha\nfiles: [src/app.py]\nsupersedes: {supersedes}\n---\n{summary}\n"
    path.write_text(text, encoding="utf-8")
    return path


def _write(cli: Callable[..., CliResult], *args: str) -> str:
    done = cli("--json", *args)
    assert done.code == 0, done.stderr
    return done.json()["id"]


def test_doctor_names_a_second_replacement_of_one_memory(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    old = _write(cli, "remember", "use the old pool", "-c", "gotcha", "-f", "src/app.py")
    first = _write(cli, "supersede", old, "use the new pool")
    assert cli("doctor").code == 0  # the supersede alone links both ways
    second = _hand_written(repo, "c0ffee01", "use the other pool", old)
    doctor = cli("--json", "doctor")
    assert doctor.code == 1, doctor.stdout
    [found] = [entry for entry in doctor.json() if entry["kind"] == "one-way-link"]
    assert found["id"] == "c0ffee01" and found["supersedes"] == old
    assert found["path"] == str(second)
    assert found["message"] == (
        f"{second}:4: c0ffee01 says it supersedes {old}, but {old} is superseded by {first}, "
        f"so the two do not link both ways; if c0ffee01 replaces nothing now, remove its "
        f"supersedes line, or `tether archive c0ffee01` if it should not stand"
    )
    text = cli("doctor")
    assert text.code == 1 and found["message"] in text.stdout


def test_doctor_names_a_replacement_of_a_memory_archived_instead(
    repo: Path, cli: Callable[..., CliResult]
) -> None:
    old = _write(cli, "remember", "use the old pool", "-c", "gotcha", "-f", "src/app.py")
    assert cli("archive", old).code == 0
    replacement = _hand_written(repo, "c0ffee02", "use the new pool", old)
    doctor = cli("--json", "doctor")
    assert doctor.code == 1, doctor.stdout
    [found] = [entry for entry in doctor.json() if entry["kind"] == "one-way-link"]
    assert found["message"].startswith(
        f"{replacement}:4: c0ffee02 says it supersedes {old}, but {old} is archived, "
    )


def test_a_whole_chain_and_a_retired_replacement_are_no_finding(
    cli: Callable[..., CliResult],
) -> None:
    old = _write(cli, "remember", "use the old pool", "-c", "gotcha", "-f", "src/app.py")
    middle = _write(cli, "supersede", old, "use the new pool")
    _write(cli, "supersede", middle, "use the newest pool")
    assert cli("doctor").code == 0
    # a replacement archived, the memory it replaced restored and then superseded anew: the
    # archived one keeps its line, as a restore leaves it
    other = _write(cli, "remember", "retry twice", "-c", "gotcha", "-f", "src/app.py")
    retired = _write(cli, "supersede", other, "retry three times")
    assert cli("archive", retired).code == 0
    assert cli("restore", other).code == 0
    _write(cli, "supersede", other, "retry four times")
    doctor = cli("doctor")
    assert doctor.code == 0, doctor.stdout
