"""A memory file written by hand that names a folder or one of git's own files: ``tether
doctor`` and ``tether show`` say what it names, in the words ``tether remember`` refuses it
with, rather than calling the folder a file that is gone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import CliResult

Cli = Callable[..., CliResult]


def write_memory(repo: Path, memory_id: str, files: str) -> None:
    """A memory file written by hand naming ``files`` (a flow list's inside)."""
    (repo / ".tether" / "memories" / f"{memory_id}.md").write_text(
        f"---\nid: {memory_id}\ncategory: gotcha\nfiles: [{files}]\n---\nWritten by hand\n",
        encoding="utf-8",
    )


def test_doctor_and_show_say_a_folder_or_a_git_file_is_one(cli: Cli, repo: Path) -> None:
    assert cli("init").code == 0
    refused = cli("remember", "x", "-c", "gotcha", "--file", "src")
    assert refused.code == 2
    folder = "files[0] 'src' is a folder; name the files it is about (src/app.py, src/util.py)"
    assert folder.replace("files[0]", "--file") in refused.stderr
    write_memory(repo, "abcd1234", "src")
    write_memory(repo, "abcd5678", ".git/config, src/gone.py")
    doctor = cli("doctor")
    assert doctor.code == 1, doctor
    assert f"abcd1234: no file it names is in the working tree: {folder}\n" in doctor.stdout
    git_own = (
        "files[0] '.git/config' is one of git's own files, not a file of the repository; "
        "name the files of the repository the memory is about"
    )
    said = f"abcd5678: no file it names is in the working tree: {git_own}; gone: src/gone.py"
    assert said in doctor.stdout
    assert "every file it names is gone" not in doctor.stdout
    shown = cli("show", "abcd1234")
    assert "file src: a folder; name the files it is about (src/app.py, src/util.py)" in (
        shown.stdout
    )
