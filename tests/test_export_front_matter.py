"""``tether export`` then ``tether import`` keeps every key of a memory file's front matter:
keys written by hand and those ``repoint`` and ``confirm`` write (which the index does not
hold) are in each record under their own names and written back by the import. A key that
cannot be written back is said on its line, and a value that looks like a credential is
refused like any other text."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, make_repo, run_tether

from recall import frontmatter
from recall.importer import import_lines
from recall.locations import project_location
from recall.store import MemoryStore

SECRET = "token " + "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # joined: no literal


def _ok(done, code: int = 0):
    assert done.code == code, done.stderr
    return done


def _front_matter(repo: Path, memory_id: str) -> dict[str, object]:
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    return frontmatter.parse(path.read_text(encoding="utf-8"), path).fields


def _add_by_hand(repo: Path, memory_id: str, lines: str) -> None:
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    text = path.read_text(encoding="utf-8")
    head, fence, body = text.partition("\n---\n")
    path.write_text(f"{head}\n{lines}{fence}{body}", encoding="utf-8")


def _remember(repo: Path, summary: str, *files: str) -> str:
    args = [f"--file={name}" for name in files]
    done = _ok(run_tether("remember", summary, "-c", "gotcha", *args, "--json", cwd=repo))
    return done.json()["id"]


def _import(repo: Path, text: str, *more: str):
    source = repo.parent / f"{repo.name}.jsonl"
    source.write_text(text, encoding="utf-8")
    return run_tether("import", str(source), *more, cwd=repo)


def _line(**record: object) -> str:
    return json.dumps({"category": "context", **record}) + "\n"


def test_hand_written_and_lifecycle_keys_survive_export_and_import(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "a")
    memory_id = _remember(repo, "the pool must be closed", "src/app.py")
    _add_by_hand(repo, memory_id, "owner: dana\nticket: {id: 7, tags: [db, pool]}\n")
    git(repo, "mv", "src/app.py", "src/main.py")
    git(repo, "commit", "-q", "-m", "rename")
    _ok(run_tether("repoint", memory_id, "--apply", cwd=repo))
    _ok(run_tether("confirm", memory_id, cwd=repo))
    before = _front_matter(repo, memory_id)
    assert before["former_files"] == ["src/app.py"] and "confirmed" in before

    exported = _ok(run_tether("export", cwd=repo))
    assert exported.stderr == ""
    [record] = exported.json_lines()
    assert record["owner"] == "dana"
    assert record["ticket"] == {"id": 7, "tags": ["db", "pool"]}
    assert record["former_files"] == ["src/app.py"]
    assert record["confirmed"] == before["confirmed"]

    other = make_repo(tmp_path / "b", {"src/main.py": "print('app')\n"})
    done = _ok(_import(other, exported.stdout))
    assert done.stderr == ""  # nothing written otherwise than the line asked
    assert _front_matter(other, memory_id) == before
    again = _ok(run_tether("export", cwd=other)).json_lines()
    assert again == [record]


def test_a_key_named_like_a_record_field_comes_back_under_front_matter(repo: Path) -> None:
    memory_id = _remember(repo, "the cache is flushed on exit", "src/app.py")
    _add_by_hand(repo, memory_id, "summary: written by hand\nscope: team\n")
    [record] = _ok(run_tether("export", cwd=repo)).json_lines()
    assert record["summary"] == "the cache is flushed on exit"
    assert record["scope"] == "project"
    assert record["front_matter"] == {"summary": "written by hand", "scope": "team"}

    other = make_repo(repo.parent / "other")
    _ok(_import(other, json.dumps(record) + "\n"))
    fields = _front_matter(other, memory_id)
    assert (fields["summary"], fields["scope"]) == ("written by hand", "team")


def test_what_an_import_cannot_write_back_as_it_was_is_said_on_export(repo: Path) -> None:
    memory_id = _remember(repo, "the release is cut on mondays", "src/app.py")
    _add_by_hand(repo, memory_id, "reviewed: 2024-01-02\nratio: .nan\nmy key: 1\n")
    exported = _ok(run_tether("export", cwd=repo))
    [record] = exported.json_lines()  # still valid JSON (no NaN)
    json.loads(exported.stdout, parse_constant=lambda name: _not_json(name))
    assert (record["reviewed"], record["ratio"]) == ("2024-01-02", ".nan")
    said = exported.stderr.splitlines()
    assert len(said) == 3
    assert f"{memory_id}: front-matter key 'reviewed' holds a YAML date" in said[0]
    assert 'exported as "2024-01-02"' in said[0]
    assert "'ratio' holds a NaN or infinite number" in said[1]
    assert record["my key"] == 1  # exported all the same, and said
    assert "'my key' is exported, but an import will not write it: a front-matter key" in said[2]


def test_a_memory_file_that_cannot_be_loaded_is_named_and_the_export_is_not_whole(
    repo: Path,
) -> None:
    """A backup that leaves out a hand-written note must say so: the file is named on stderr
    with its line, the other memories are exported, and the exit code is not 0."""
    kept = _remember(repo, "the release is cut on mondays", "src/app.py")
    broken = repo / ".tether" / "memories" / "bad1bad1.md"
    broken.write_text(
        "---\nid: bad1bad1\ncategory: gotcha\nfiles: [src/app.py\n---\nmy note\n",
        encoding="utf-8",
    )
    exported = _ok(run_tether("export", "--status", "all", cwd=repo), code=3)
    assert [r["id"] for r in exported.json_lines()] == [kept]
    assert f"skipped {broken}:" in exported.stderr and "fix the file" in exported.stderr
    rebuilt = _ok(run_tether("reindex", cwd=repo))
    assert "1 memory file skipped" in rebuilt.stdout
    assert f"skipped {broken}:" in rebuilt.stderr  # which one, not only how many


def _not_json(name: str) -> object:
    raise AssertionError(f"{name} is not JSON")


def test_import_stores_extra_keys_and_says_what_it_cannot(repo: Path) -> None:
    done = _ok(
        _import(
            repo,
            _line(
                summary="the queue drains before shutdown",
                id="0a0b0c0d",
                colour="blue",
                tags=["ops", 3, True, None, 1.5],
                **{"my key": 1, "yes": 2, "n": float("nan")},
                front_matter={
                    "details": "by hand",
                    "colour": "red",
                    "files": ["x.py"],
                    "content_hash": "0",
                },
            ),
        )
    )
    source = repo.parent / f"{repo.name}.jsonl"
    lines = done.stderr.splitlines()
    assert lines.pop(0) == f"{source}:1: 'colour' is given twice; the one outside " + (
        "'front_matter' is stored"
    )
    assert lines[0] == f"{source}:1: 'my key' not stored: a front-matter key is a plain " + (
        "name (letters, digits, '_' and '-', starting with a letter or '_', and not a word "
        "YAML reads as a value such as 'true' or 'null'); rename it"
    )
    assert lines[1].startswith(f"{source}:1: 'yes' not stored: a front-matter key is a plain")
    assert lines[2] == f"{source}:1: 'files' not stored: it is a memory field; " + (
        "give it as the line's own 'files'"
    )
    assert lines[3] == f"{source}:1: 'content_hash' not stored: it is made from the " + (
        "memory's text; leave it out"
    )
    assert lines[4].startswith(f"{source}:1: 'n' not stored: its value cannot be written")
    assert len(lines) == 5
    fields = _front_matter(repo, "0a0b0c0d")
    assert fields["colour"] == "blue"
    assert fields["tags"] == ["ops", 3, True, None, 1.5]
    assert fields["details"] == "by hand"
    assert not {"my key", "yes", "n", "content_hash"} & fields.keys()
    assert fields["files"] == []


def test_a_credential_in_a_front_matter_value_refuses_the_line(repo: Path) -> None:
    done = _import(
        repo,
        _line(summary="deploys use the bot account", id="0b0b0b0b", deploy=SECRET)
        + _line(summary="the bot account rotates", id="0c0c0c0c", note={"how": [SECRET]}),
    )
    assert done.code == 2
    source = repo.parent / f"{repo.name}.jsonl"
    lines = done.stderr.splitlines()
    assert lines[0].startswith(f"{source}:1: refusing to write what looks like a credential")
    assert "in front-matter key 'deploy'" in lines[0]
    assert "in front-matter key 'note'" in lines[1]
    assert not (repo / ".tether" / "memories" / "0b0b0b0b.md").exists()
    allowed = _ok(
        _import(
            repo,
            _line(summary="deploys use the bot", id="0b0b0b0b", deploy=SECRET, allow_secret=True),
        )
    )
    assert allowed.stderr == ""
    assert _front_matter(repo, "0b0b0b0b")["deploy"] == SECRET


def test_a_duplicate_line_says_which_keys_its_memory_lacks(repo: Path) -> None:
    _ok(_import(repo, _line(summary="builds run offline", id="0d0d0d0d", owner="dana")))
    again = _ok(_import(repo, _line(summary="builds run offline", owner="dana")))
    assert again.stderr == ""  # the same front matter: nothing to say
    other = _ok(_import(repo, _line(summary="builds run offline", owner="lee", team="infra")))
    source = repo.parent / f"{repo.name}.jsonl"
    path = repo / ".tether" / "memories" / "0d0d0d0d.md"
    assert other.stderr.splitlines() == [
        f"{source}:1: front matter not written to 0d0d0d0d, which holds the same knowledge: "
        f"'owner', 'team'; add it to {path} by hand if it belongs there"
    ]
    assert _front_matter(repo, "0d0d0d0d")["owner"] == "dana"


def test_lines_drafted_in_another_process_keep_their_extra_keys(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    store = MemoryStore(project_location(repo, create_at_cwd=True), notice=lambda _m: None)
    lines = [
        _line(summary=f"fact {n}", id=f"{n:08x}", owner=f"user{n}", **({"x": 1} if n % 2 else {}))
        for n in range(1, 40)
    ]
    results = import_lines(
        store, lines, lambda raw: raw, "tester", draft_elsewhere_from=0, write_behind_from=0
    )
    assert {r.status for r in results} == {"created"}
    for n in range(1, 40):
        fields = _front_matter(repo, f"{n:08x}")
        assert fields["owner"] == f"user{n}"
        assert fields.get("x") == (1 if n % 2 else None)
    store.close()


def test_a_value_yaml_reads_as_other_than_its_text_is_said_on_export(repo: Path) -> None:
    memory_id = _remember(repo, "the protocol version is pinned", "src/app.py")
    hand = 'ver: 1.10\nmask: 0x10  # hex\nflag: on\nquoted: "1.10"\ncount: 5\nname: plain\n'
    _add_by_hand(repo, memory_id, hand)
    exported = _ok(run_tether("export", cwd=repo))
    [record] = exported.json_lines()
    assert (record["ver"], record["mask"], record["flag"]) == (1.1, 16, True)
    assert (record["quoted"], record["count"], record["name"]) == ("1.10", 5, "plain")
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    lines = path.read_text(encoding="utf-8").splitlines()
    said = exported.stderr.splitlines()
    assert len(said) == 3, said
    for note, (key, text, read) in zip(
        said, [("ver", "1.10", "1.1"), ("mask", "0x10", "16"), ("flag", "on", "true")], strict=True
    ):
        line = lines.index(next(x for x in lines if x.startswith(f"{key}:"))) + 1
        assert f"front-matter key {key!r} is written {text} on {path}:{line}" in note
        assert f"which YAML reads as {read}: exported as {read}" in note
        assert f'quote it there ({key}: "{text}")' in note
    # quoted as the note says, the text comes through as written
    path.write_text(path.read_text(encoding="utf-8").replace("ver: 1.10", 'ver: "1.10"'))
    again = _ok(run_tether("export", cwd=repo))
    assert again.json_lines()[0]["ver"] == "1.10"
    assert len(again.stderr.splitlines()) == 2


def test_a_value_yaml_reads_as_other_than_its_text_in_an_anchor_entry_is_said_on_export(
    repo: Path,
) -> None:
    done = _ok(run_tether("remember", "helper returns one", "-c", "gotcha", "--anchor",
                          "src/util.py::helper", "--json", cwd=repo))  # fmt: skip
    memory_id = done.json()["id"]
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    text = path.read_text(encoding="utf-8")
    body = _front_matter(repo, memory_id)["anchors"][0]["body"]
    hand = 'lines: 1.10\n  mask: 0x10\n  flag: on\n  quoted: "1.10"\n  count: 5\n'
    path.write_text(text.replace(f"body: {body}\n", f"body: 0777\n  {hand}"), encoding="utf-8")

    exported = _ok(run_tether("export", cwd=repo))

    [record] = exported.json_lines()
    [anchor] = record["anchors"]
    assert anchor["body"] == "511"  # read as a number, kept as its text
    assert anchor["extra"] == {"lines": 1.1, "mask": 16, "flag": True, "quoted": "1.10", "count": 5}
    lines = path.read_text(encoding="utf-8").splitlines()
    said = exported.stderr.splitlines()
    expected = [
        ("body", "0777", "511", '"511"'),
        ("lines", "1.10", "1.1", "1.1"),
        ("mask", "0x10", "16", "16"),
        ("flag", "on", "true", "true"),
    ]
    assert len(said) == len(expected), said
    for note, (key, written, read, sent) in zip(said, expected, strict=True):
        line = lines.index(next(x for x in lines if x.lstrip().startswith(f"{key}:"))) + 1
        assert (
            f"key {key!r} of anchor src/util.py::helper is written {written} on {path}:{line}"
            in note
        )
        assert f"which YAML reads as {read}: exported as {sent}" in note
        assert f'quote it there ({key}: "{written}")' in note
    # quoted as the notes say, the text comes through as written
    quoted = path.read_text(encoding="utf-8").replace("lines: 1.10", 'lines: "1.10"')
    path.write_text(quoted.replace("body: 0777", 'body: "0777"'), encoding="utf-8")
    again = _ok(run_tether("export", cwd=repo))
    [anchor] = again.json_lines()[0]["anchors"]
    assert (anchor["body"], anchor["extra"]["lines"]) == ("0777", "1.10")
    assert len(again.stderr.splitlines()) == 2


def test_a_content_hash_written_by_hand_is_exported_and_said_with_its_file_and_line(
    tmp_path: Path,
) -> None:
    """Tether makes a memory's content hash from its text and never reads a ``content_hash``
    key of its file; such a key written by hand is still the person's: the export carries it
    (under ``front_matter``, the record's own ``content_hash`` being the real one) and names
    its file and line, saying that an import will not write it back and what to do."""
    repo = make_repo(tmp_path / "a")
    memory_id = _remember(repo, "the pool must be closed", "src/app.py")
    _add_by_hand(repo, memory_id, 'content_hash: "mine-by-hand"\nowner: dana\n')
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    line = path.read_text(encoding="utf-8").splitlines().index('content_hash: "mine-by-hand"') + 1

    exported = _ok(run_tether("export", cwd=repo))
    [record] = exported.json_lines()
    assert record["content_hash"] != "mine-by-hand"  # the hash of the text, as always
    assert record["front_matter"] == {"content_hash": "mine-by-hand"}
    assert record["owner"] == "dana"
    [said] = exported.stderr.splitlines()
    assert said.startswith(f"tether: export: {memory_id}: front-matter key 'content_hash' on ")
    assert f"on {path}:{line} is not read" in said
    assert "an import will not write it back: remove the line from the file" in said

    other = make_repo(tmp_path / "b")
    imported = _ok(_import(other, exported.stdout))
    source = other.parent / f"{other.name}.jsonl"
    assert imported.stderr.splitlines() == [
        f"{source}:1: 'content_hash' not stored: it is made from the memory's text; leave it out"
    ]
    fields = _front_matter(other, memory_id)
    assert fields["owner"] == "dana" and "content_hash" not in fields


def test_a_key_tether_reads_as_text_that_yaml_reads_otherwise_is_said_on_export(
    repo: Path,
) -> None:
    memory_id = _remember(repo, "the release train leaves on tuesdays", "src/app.py")
    path = repo / ".tether" / "memories" / f"{memory_id}.md"
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines):  # meant as YAML reads them: no note for these
        if line.startswith(("author:", "pinned:", "created:")):
            key = line.split(":", 1)[0]
            lines[number] = {
                "author": "author: on",
                "pinned": "pinned: on",
                "created": "created: 2026-11-30T12:00:00Z",
            }[key]
    path.write_text("\n".join(lines), encoding="utf-8")
    _add_by_hand(repo, memory_id, "anchor: 1.10\n")

    exported = _ok(run_tether("export", cwd=repo))

    [record] = exported.json_lines()
    assert (record["author"], record["anchor"], record["pinned"]) == ("True", "1.1", True)
    lines = path.read_text(encoding="utf-8").splitlines()
    said = exported.stderr.splitlines()
    expected = [("author", "on", "true", '"True"'), ("anchor", "1.10", "1.1", '"1.1"')]
    assert len(said) == len(expected), said
    for note, (key, written, read, sent) in zip(said, expected, strict=True):
        line = lines.index(f"{key}: {written}") + 1
        assert f"front-matter key {key!r} is written {written} on {path}:{line}" in note
        assert f"which YAML reads as {read}: exported as {sent}" in note
        assert f'quote it there ({key}: "{written}") to keep it as text' in note
    # quoted as the notes say, the text comes through as written
    quoted = path.read_text(encoding="utf-8").replace("author: on", 'author: "on"')
    path.write_text(quoted.replace("anchor: 1.10", 'anchor: "1.10"'), encoding="utf-8")
    again = _ok(run_tether("export", cwd=repo))
    assert (again.json_lines()[0]["author"], again.json_lines()[0]["anchor"]) == ("on", "1.10")
    assert again.stderr == ""
