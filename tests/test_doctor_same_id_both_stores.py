"""One id held by both stores (hand-written files of one name, a memory file copied from the
repository into the global store) is reached by no command, so ``tether doctor`` names both
files, exit 1, with the rename that gives the global one an id of its own."""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult


def _hand_written(folder: Path, name: str, text: str) -> Path:
    folder.parent.mkdir(mode=0o700, exist_ok=True)  # the global store is private
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def _renamed_as_told(message: str) -> None:
    [move] = re.findall(r"`(mv [^`]+)`", message)
    subprocess.run(shlex.split(move), check=True)


def test_doctor_names_one_file_name_in_both_stores_and_the_rename(
    repo: Path, tether_home: Path, cli: Callable[..., CliResult]
) -> None:
    assert cli("init").code == 0
    team = _hand_written(
        repo / ".tether" / "memories",
        "notes.md",
        "---\ncategory: gotcha\nfiles: [src/app.py]\n---\nTeam note about app.py\n",
    )
    mine = _hand_written(
        tether_home / "memories", "notes.md", "---\ncategory: pref\nfiles: []\n---\nMy own way\n"
    )
    [memory_id] = {m["id"] for m in cli("--json", "list", "--scope", "all").json()}
    assert cli("show", memory_id).code == 2  # no id reaches either
    for scope in ("all", "project"):
        doctor = cli("--json", "doctor", "--scope", scope)
        assert doctor.code == 1, doctor.stdout
        [found] = [entry for entry in doctor.json() if entry["kind"] == "same-id"]
        assert found["id"] == memory_id and found["paths"] == [str(team), str(mine)]
        assert found["scope"] == "global" and found["path"] == str(mine)
        assert found["message"].startswith(
            f"{mine}: memory {memory_id} of the global store has the id of the project "
            f"store's {team}, so no command reaches either by id; give this one an id of its "
            f"own: `mv {mine} {mine.parent}/"
        )
        assert "`id:` line" not in found["message"]  # the name alone gives the id
    text = cli("doctor")
    assert text.code == 1 and f"{mine}: memory {memory_id}" in text.stdout
    _renamed_as_told(found["message"])
    assert cli("doctor", "--scope", "all").code == 0
    shown = cli("show", memory_id)
    assert shown.code == 0 and "Team note about app.py" in shown.stdout


def test_a_memory_file_copied_into_the_global_store_is_told_to_change_its_id_line(
    repo: Path, tether_home: Path, cli: Callable[..., CliResult]
) -> None:
    written = cli("--json", "remember", "team note", "-c", "gotcha", "-f", "src/app.py").json()
    source = Path(written["path"])
    copy = _hand_written(tether_home / "memories", source.name, source.read_text("utf-8"))
    doctor = cli("--json", "doctor", "--scope", "all")
    assert doctor.code == 1, doctor.stdout
    [found] = [entry for entry in doctor.json() if entry["kind"] == "same-id"]
    assert found["path"] == str(copy)
    [new_id] = re.findall(r"change its `id:` line to `id: ([0-9a-f]{8})`", found["message"])
    assert f"`mv {copy} {copy.parent}/{new_id}.md`" in found["message"]
