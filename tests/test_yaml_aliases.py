"""A memory file whose front matter reuses a list or mapping through YAML aliases is refused
when read, named with its line, and every other memory is still exported: a few lines of
aliases stand for a value too large to build, and one inside its own anchor for one without
end."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tether

LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n"
    for prev, name in zip("abcdefghi", "bcdefghij", strict=True)
)


def _write(repo: Path, name: str, front: str) -> Path:
    folder = repo / ".tether" / "memories"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(
        f"---\nid: {name}\ncategory: gotcha\nfiles: [src/app.py]\n{front}---\nby hand\n",
        encoding="utf-8",
    )
    return path


def test_aliased_lists_are_refused_and_the_rest_is_exported(repo: Path) -> None:
    good = json.loads(
        run_tether(
            "remember", "a plain one", "-c", "gotcha", "-f", "src/app.py", "--json", cwd=repo
        ).stdout
    )["id"]
    laughs = _write(repo, "eeee0001", 'a: &a ["lol", "lol", "lol"]\n' + LAUGHS)
    loop = _write(repo, "eeee0002", "loop: &l [1, *l]\n")
    done = run_tether("export", cwd=repo)
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [good]
    assert f"{laughs}:6: 'b' reuses a list or mapping through a YAML alias" in done.stderr
    assert f"{loop}:5: 'loop' reuses a list or mapping through a YAML alias" in done.stderr
    doctor = run_tether("doctor", cwd=repo)
    assert f"{loop}:5: " in doctor.stdout


def test_a_text_named_twice_through_an_alias_is_still_read(repo: Path) -> None:
    _write(repo, "eeee0003", "owner: &who platform-team\nreviewer: *who\n")
    shown = run_tether("show", "eeee0003", "--json", cwd=repo)
    assert shown.code == 0, shown.stderr


def test_text_reused_past_many_times_its_size_is_refused_by_every_reader(repo: Path) -> None:
    good = json.loads(
        run_tether(
            "remember", "a plain one", "-c", "gotcha", "-f", "src/app.py", "--json", cwd=repo
        ).stdout
    )["id"]
    blob = "x" * 30_000
    bomb = _write(repo, "eeee0004", f'blob: &s "{blob}"\nmany: [{", ".join(["*s"] * 8000)}]\n')
    said = f"{bomb}:6: 'many' reuses text through YAML aliases (*name) so often"
    listed = run_tether("list", "--json", cwd=repo)  # the memory index says what it skips once
    assert f"skipped {said}" in listed.stderr
    assert [m["id"] for m in listed.json()] == [good]
    done = run_tether("export", cwd=repo)
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [good]
    assert said in done.stderr and "write the text out once" in done.stderr
    assert len(done.stdout) < len(blob)  # nothing of it expanded
    assert said in run_tether("doctor", cwd=repo).stdout


def test_text_reused_within_the_bound_is_read(repo: Path) -> None:
    text = "y" * 1000
    _write(repo, "eeee0005", f'blob: &s "{text}"\nmore: [{", ".join(["*s"] * 60)}]\n')
    shown = run_tether("show", "eeee0005", "--json", cwd=repo)
    assert shown.code == 0, shown.stderr
    assert "reuses text" not in run_tether("doctor", cwd=repo).stdout
