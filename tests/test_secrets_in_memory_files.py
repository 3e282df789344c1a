"""A credential written by hand into a memory file never reaches an agent whole.

``tether remember`` refuses credential-shaped text, but a person may write or edit a memory
file under ``.tether/memories/`` with an access key in its summary or a password in a URL in
its details. What Tether puts into an agent's context (``tether inject`` and the prompt hook,
the edit hooks' warnings and guard questions, ``tether recall``) shows it masked, as a refusal
masks it, and says which file holds it. The file itself is never rewritten.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import git, run_tether

from recall import hooks
from tests.test_hooks import context_of, edit_input, prompt_input

AWS_KEY = "AKIA" + "IOSFODNN7ABCDEFG"  # made up; joined so no scanner trips on this file
GITHUB_TOKEN = "ghp_" + "Zk3Zq9aB7cD1eF2gH3iJ4kL5mN6oP7qR8sT9"
DB_PASSWORD = "s3cret" + "Passw0rd"
SUMMARY = f"deploys to the bucket use the key {AWS_KEY}"
DETAILS = (
    f"The database is postgres://admin:{DB_PASSWORD}@db.example.com/app\n"
    f"and the CI bot's token is {GITHUB_TOKEN}."
)
NEVER = (AWS_KEY[8:], DB_PASSWORD, GITHUB_TOKEN[8:])
"""What must never be printed where the credential is masked: the part past its excerpt."""
MASKED_SUMMARY = "deploys to the bucket use the key AKIAIOSF…[20 chars]"
MEMORY_ID = "5ec0e7a1"
OTHER_SESSION = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d"
OTHERS = ("the guide is built with mkdocs", "tests run offline", "logs rotate daily")


def write_by_hand(repo: Path, *, guard: bool = False) -> Path:
    """The memory file a person writes by hand, as a clone brings it (committed)."""
    assert run_tether("init", cwd=repo).code == 0
    folder = repo / ".tether" / "memories"
    path = folder / f"{MEMORY_ID}.md"
    marks = "guard: true\n" if guard else ""
    for n, summary in enumerate(OTHERS):  # other memories: a word in every one ranks nothing
        (folder / f"d0c5d0c{n}.md").write_text(
            f"---\ncategory: decision\nfiles:\n  - docs/guide.md\n---\n{summary}\n",
            encoding="utf-8",
        )
    path.write_text(
        f"---\nid: {MEMORY_ID}\ncategory: gotcha\nfiles:\n  - src/app.py\n{marks}---\n"
        f"{SUMMARY}\n\n{DETAILS}\n",
        encoding="utf-8",
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a memory written by hand")
    return path


def never_whole(text: str) -> None:
    """Fail when ``text`` holds any credential past the excerpt its masking shows."""
    for secret in NEVER:
        assert secret not in text, text


def _said_where(stderr: str, path: Path) -> None:
    assert f"{path}: memory {MEMORY_ID} holds what looks like a credential" in stderr
    assert "remove it from the file" in stderr


def test_inject_masks_the_credential_and_names_the_file(repo: Path) -> None:
    path = write_by_hand(repo)
    before = path.read_bytes()
    done = run_tether("inject", "-f", "src/app.py", "deploy to the bucket", cwd=repo)
    assert done.code == 0, done.stderr
    assert f"[gotcha] {MEMORY_ID} — {MASKED_SUMMARY} · " in done.stdout
    never_whole(done.stdout + done.stderr)
    _said_where(done.stderr, path)

    as_json = run_tether("--json", "inject", "-f", "src/app.py", "deploy", cwd=repo)
    data = as_json.json()
    [result] = data["results"]
    assert result["summary"] == MASKED_SUMMARY and result["secret_masked"] is True
    never_whole(as_json.stdout)
    assert path.read_bytes() == before  # nothing the person wrote is rewritten


def test_recall_masks_the_credential_piped_as_json_and_in_a_batch(repo: Path) -> None:
    path = write_by_hand(repo)
    piped = run_tether("recall", "-f", "src/app.py", cwd=repo)
    assert piped.code == 0, piped.stderr
    assert piped.stdout.split("\t")[3] == MASKED_SUMMARY
    never_whole(piped.stdout + piped.stderr)
    _said_where(piped.stderr, path)

    as_json = run_tether("--json", "recall", "-f", "src/app.py", cwd=repo)
    [hit] = as_json.json()["results"]
    assert hit["summary"] == MASKED_SUMMARY and hit["secret_masked"] is True
    never_whole(as_json.stdout)

    batch = run_tether(
        "recall", "--batch", "-", cwd=repo, stdin=json.dumps({"files": ["src/app.py"]}) + "\n"
    )
    [line] = batch.json_lines()
    assert line["results"][0]["summary"] == MASKED_SUMMARY
    assert any(f"{path}: memory {MEMORY_ID}" in note for note in line["notes"])
    never_whole(batch.stdout + batch.stderr)


def test_the_hooks_give_the_agent_the_credential_masked(
    repo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_by_hand(repo, guard=True)
    asking = prompt_input(repo, "Which key do deploys to the bucket use?")
    prompt = hooks.run("prompt", json.dumps(asking))
    injected = context_of(prompt, "UserPromptSubmit")
    assert f"[gotcha] {MEMORY_ID} — {MASKED_SUMMARY} · " in injected
    never_whole(prompt)

    editing = edit_input(repo, "src/app.py", session=OTHER_SESSION)  # none shown to it yet
    asked = json.loads(hooks.run("pre-edit", json.dumps(editing)))
    answer = asked["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask"  # the guard still asks
    assert f'guarded gotcha "{MASKED_SUMMARY}" [{MEMORY_ID}]' in answer["permissionDecisionReason"]
    assert f'· gotcha "{MASKED_SUMMARY}" [{MEMORY_ID}]' in answer["additionalContext"]
    never_whole(json.dumps(asked, ensure_ascii=False))

    # hooks.log, or what the test run caught (a process opens its log once, so a test run's
    # later hooks may log elsewhere)
    log_file = repo / ".tether" / "hooks.log"
    log = log_file.read_text(encoding="utf-8") if log_file.exists() else ""
    log += "\n".join(r.getMessage() for r in caplog.records if r.name == hooks.LOGGER)
    assert f"{path}: memory {MEMORY_ID} holds what looks like a credential" in log  # the person's
    never_whole(log)
