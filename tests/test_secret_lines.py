"""The person's own memory file is shown as written, and where it holds a credential is said:
``tether show`` prints the text as the file has it and names each line holding one on stderr,
``tether doctor`` names the file and line of each (agents are given them masked: see
tests/test_secrets_in_memory_files.py), and once the person removes it nothing is said."""

from __future__ import annotations

from pathlib import Path

from conftest import run_tether

from tests.test_secrets_in_memory_files import (
    AWS_KEY,
    DETAILS,
    MEMORY_ID,
    SUMMARY,
    never_whole,
    write_by_hand,
)


def test_show_prints_the_file_as_written_and_says_where_the_credential_is(repo: Path) -> None:
    path = write_by_hand(repo)
    done = run_tether("show", MEMORY_ID, cwd=repo)
    assert done.code == 0, done.stderr
    assert SUMMARY in done.stdout and DETAILS.splitlines()[1] in done.stdout
    said = [line for line in done.stderr.splitlines() if "index.db was missing" not in line]
    assert len(said) == 3, said  # the summary's line, then the two of the details
    assert said[0].startswith(f"tether: {path}:7: {MEMORY_ID}: its text holds what looks like")
    assert "AWS access key id (AKIAIOSF…[20 chars]); shown here as written" in said[0]
    assert said[1].startswith(f"tether: {path}:9: {MEMORY_ID}: ")
    assert "password in a URL (s3c…[14 chars])" in said[1]
    assert said[2].startswith(f"tether: {path}:10: {MEMORY_ID}: ")
    never_whole(done.stderr)


def test_doctor_names_each_line_holding_a_credential(repo: Path) -> None:
    path = write_by_hand(repo)
    done = run_tether("doctor", cwd=repo)
    assert done.code == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{path}:7: {MEMORY_ID}: its text holds what looks like a ")
    assert lines[2].startswith(f"{path}:10: {MEMORY_ID}: its text holds what looks like a ")
    assert "GitHub token (ghp_Zk3Z…[40 chars])" in lines[2]
    assert "remove it from the file (say where the secret lives instead)" in lines[0]
    never_whole(done.stdout + done.stderr)

    found = run_tether("--json", "doctor", cwd=repo).json()
    assert [(f["kind"], f["path"], f["id"], f["line"]) for f in found] == [
        ("credential", str(path), MEMORY_ID, 7),
        ("credential", str(path), MEMORY_ID, 9),
        ("credential", str(path), MEMORY_ID, 10),
    ]

    # removed by hand, as the finding says: nothing is masked or said any more
    path.write_text(path.read_text(encoding="utf-8").replace(AWS_KEY, "from $DEPLOY_KEY"))
    path.write_text(path.read_text(encoding="utf-8").split("\n\n")[0] + "\n")
    assert run_tether("doctor", cwd=repo).code == 0
    clean = run_tether("recall", "-f", "src/app.py", cwd=repo)
    assert "deploys to the bucket use the key from $DEPLOY_KEY" in clean.stdout
    assert "credential" not in clean.stderr
