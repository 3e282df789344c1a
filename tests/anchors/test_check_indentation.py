"""Where indentation is syntax (Python), a line moved in or out of a block and a decorator
taken off are edits of a guarded function; anchors recorded before, with the older
whitespace-blind hash, still read as current while their code is unchanged."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult, git, make_repo

from recall import frontmatter

GATE = "def gate(x):\n    if x:\n        y = 1\n        return y\n    return 0\n"
DEDENTED = "def gate(x):\n    if x:\n        y = 1\n    return y\n    return 0\n"
SECRET = (
    "import functools\n\n\n@functools.lru_cache\n@require_admin\ndef secret(x):\n    return x\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "py-repo", {"src/gate.py": GATE, "src/secret.py": SECRET})


@pytest.fixture
def run(repo: Path, cli: Callable[..., CliResult]) -> Callable[..., CliResult]:
    def runner(*args: str) -> CliResult:
        return cli(*args, cwd=repo)

    return runner


def guarded(run: Callable[..., CliResult], repo: Path, anchor: str) -> str:
    assert run("index").code == 0
    done = run("remember", "keep it so", "-c", "gotcha", "--anchor", anchor, "--guard", "--json")
    assert done.code == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "guarded memory")
    return str(done.json()["id"])


def state_of(run: Callable[..., CliResult], memory_id: str) -> str:
    assert run("index").code == 0
    shown = run("show", memory_id, "--json")
    assert shown.code == 0, shown.stderr
    [anchor] = shown.json()["anchor_states"]
    return str(anchor["state"])


def old_form(text: str) -> str:
    """The hash anchors were recorded with before indentation counted."""
    return hashlib.blake2b(b" ".join(text.encode().split()), digest_size=6).hexdigest()


def record(repo: Path, memory_id: str, body: str) -> None:
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    fields = frontmatter.parse(path.read_text(), path).fields
    [anchor] = fields["anchors"]
    anchor = {**anchor, "body": body}
    path.write_text(frontmatter.update(path.read_text(), path, {"anchors": [anchor]}))
    git(repo, "commit", "-q", "--allow-empty", "-am", "anchor of an earlier version")


def test_a_line_moved_out_of_its_block_is_an_edit_of_a_guarded_function(
    repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, repo, "src/gate.py::gate")
    (repo / "src/gate.py").write_text(DEDENTED)
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["id"] == memory_id and "the change edits gate" in failure["reason"]
    assert state_of(run, memory_id) == "changed"


def test_layout_alone_is_still_no_edit(repo: Path, run: Callable[..., CliResult]) -> None:
    memory_id = guarded(run, repo, "src/gate.py::gate")
    relaid = "def gate(x):   \n    if  x:\n\n        y = 1\n        return y\n    return 0\n"
    (repo / "src/gate.py").write_text(relaid)
    assert run("check").code == 0
    assert state_of(run, memory_id) == "current"


def test_a_decorator_taken_off_is_an_edit_of_a_guarded_function(
    repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, repo, "src/secret.py::secret")
    (repo / "src/secret.py").write_text(SECRET.replace("@require_admin\n", ""))
    done = run("check", "--json")
    assert done.code == 1, done.stdout
    [failure] = done.json()["failures"]
    assert failure["id"] == memory_id and "the change edits secret" in failure["reason"]
    assert state_of(run, memory_id) == "changed"


def test_an_anchor_recorded_with_the_older_hash_stays_current_while_unchanged(
    repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, repo, "src/gate.py::gate")
    record(repo, memory_id, old_form(GATE.rstrip("\n")))
    assert state_of(run, memory_id) == "current"
    assert run("check").code == 0
    (repo / "src/gate.py").write_text(GATE + "\n\nLATER = 1\n")  # another line of the file
    done = run("check", "--json")
    assert done.code == 0, done.stdout
    # its code re-indented in the change: the older hash vouched for the base's code
    (repo / "src/gate.py").write_text(DEDENTED)
    assert run("check").code == 1


def test_an_anchor_recorded_with_the_older_hash_still_sees_an_edit(
    repo: Path, run: Callable[..., CliResult]
) -> None:
    memory_id = guarded(run, repo, "src/gate.py::gate")
    record(repo, memory_id, old_form(GATE.rstrip("\n")))
    (repo / "src/gate.py").write_text(GATE.replace("return 0", "return 1"))
    assert run("check").code == 1
    assert state_of(run, memory_id) == "changed"
