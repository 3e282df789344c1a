"""``tether agent-config claude-code`` run again over its folder, and what ``--command`` names.

A re-run replaces only the files still as Tether wrote them; a file a person changed is kept,
named on stderr, and the exit code is 3 until ``--force`` (which keeps it as ``NAME.bak``).
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CliResult, run_tether

HOOKS = "hooks/hooks.json"
MANIFEST = ".claude-plugin/plugin.json"


def program(path: Path, *, executable: bool = True) -> Path:
    """A stand-in tether program at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)
    return path


def configure(folder: Path, command: Path, *more: str) -> CliResult:
    """Write the plugin folder running ``command``."""
    args = ("--dir", str(folder), "--command", str(command), *more)
    return run_tether("agent-config", "claude-code", *args, cwd=folder.parent)


def mcp_command(folder: Path) -> dict[str, object]:
    """The MCP server entry of the written manifest."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    return manifest["mcpServers"]["tether"]


def test_a_rerun_keeps_a_file_the_user_changed(tmp_path: Path) -> None:
    folder, tether = tmp_path / "plugin", program(tmp_path / "bin" / "tether")
    assert configure(folder, tether).code == 0
    (folder / HOOKS).write_text('{"my": "hooks"}\n', encoding="utf-8")
    other = program(tmp_path / "other" / "tether")
    done = configure(folder, other)
    assert done.code == 3
    assert (folder / HOOKS).read_text(encoding="utf-8") == '{"my": "hooks"}\n'
    assert f"not written: {folder / HOOKS} (changed since Tether wrote it)" in done.stderr
    assert "--force" in done.stderr and "NAME.bak" in done.stderr
    assert mcp_command(folder)["command"] == str(other)  # the files nobody changed follow
    report = configure(folder, other, "--json")
    assert report.code == 3
    assert report.json()["kept"] == [
        {"path": str(folder / HOOKS), "reason": "changed since Tether wrote it"}
    ]


def test_the_files_kept_are_counted_in_words(tmp_path: Path) -> None:
    folder, tether = tmp_path / "plugin", program(tmp_path / "bin" / "tether")
    assert configure(folder, tether).code == 0
    (folder / HOOKS).write_text('{"my": "hooks"}\n', encoding="utf-8")
    one = configure(folder, tether)
    assert "tether: 1 file left as it is; rerun with --force to replace it (" in one.stderr
    (folder / MANIFEST).write_text('{"my": "manifest"}\n', encoding="utf-8")
    two = configure(folder, tether)
    assert "tether: 2 files left as they are; rerun with --force to replace them (" in two.stderr


def test_force_replaces_a_changed_file_and_keeps_the_old_one_beside_it(tmp_path: Path) -> None:
    folder, tether = tmp_path / "plugin", program(tmp_path / "bin" / "tether")
    assert configure(folder, tether).code == 0
    written = (folder / HOOKS).read_text(encoding="utf-8")
    for backup, mine in ((HOOKS + ".bak", "first edit\n"), (HOOKS + ".bak.1", "second edit\n")):
        (folder / HOOKS).write_text(mine, encoding="utf-8")
        done = configure(folder, tether, "--force")
        assert done.code == 0, done.stderr
        assert f"wrote {folder / HOOKS} (yours is now {folder / backup})" in done.stdout
        assert (folder / HOOKS).read_text(encoding="utf-8") == written
        assert (folder / backup).read_text(encoding="utf-8") == mine


def test_a_rerun_with_another_command_updates_every_file_nobody_changed(tmp_path: Path) -> None:
    folder = tmp_path / "plugin"
    assert configure(folder, program(tmp_path / "a" / "tether")).code == 0
    other = program(tmp_path / "b" / "tether")
    done = configure(folder, other)
    assert done.code == 0, done.stderr
    assert f"wrote {folder / HOOKS}" in done.stdout
    assert f"unchanged {folder / '.claude-plugin/icon.png'}" in done.stdout
    hooks = json.loads((folder / HOOKS).read_text(encoding="utf-8"))
    assert hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == f"{other} hook prompt"


def test_a_file_that_was_there_before_tether_stops_the_write_until_force(tmp_path: Path) -> None:
    folder = tmp_path / "plugin"
    folder.mkdir()
    (folder / "README.md").write_text("my notes\n", encoding="utf-8")
    tether = program(tmp_path / "bin" / "tether")
    done = configure(folder, tether)
    assert done.code == 3, done
    assert f"holds files Tether did not write: {folder / 'README.md'}; nothing was written" in (
        done.stderr
    )
    assert "--force" in done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["README.md"]
    forced = configure(folder, tether, "--force")
    assert forced.code == 0, forced
    assert (folder / "README.md.bak").read_text(encoding="utf-8") == "my notes\n"
    assert (folder / HOOKS).is_file()
    again = configure(folder, tether)  # the backup Tether made is no stranger's file
    assert again.code == 0, again


def test_a_repository_supplied_plugin_folder_with_other_files_is_not_filled(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    plugin = repo / "tether-claude-plugin"
    (plugin / "skills" / "helper").mkdir(parents=True)
    (plugin / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "sh"}}}\n', "utf-8")
    (plugin / "skills" / "helper" / "SKILL.md").write_text("Run a script\n", "utf-8")
    tether = program(tmp_path / "bin" / "tether")
    for force in ((), ("--force",)):
        done = run_tether("agent-config", "claude-code", "--command", str(tether), *force,
                          cwd=repo)  # fmt: skip
        assert done.code == 3, done
        named = f"{plugin / '.mcp.json'}, {plugin / 'skills/helper/SKILL.md'}; nothing was written"
        assert f"{plugin} holds files Tether did not write: {named}" in done.stderr
        assert "another folder (--dir)" in done.stderr
        assert sorted(p.name for p in plugin.iterdir()) == [".mcp.json", "skills"]


def test_a_forged_record_does_not_make_another_file_tethers(tmp_path: Path) -> None:
    folder = tmp_path / "plugin"
    tether = program(tmp_path / "bin" / "tether")
    assert configure(folder, tether).code == 0
    record = json.loads((folder / ".tether-written.json").read_text(encoding="utf-8"))
    record["files"][".mcp.json"] = "sha256:" + "0" * 64
    (folder / ".tether-written.json").write_text(json.dumps(record), encoding="utf-8")
    (folder / ".mcp.json").write_text("{}\n", encoding="utf-8")
    done = configure(folder, tether, "--json")
    assert done.code == 3, done
    error = json.loads(done.stderr)
    assert error["exit_code"] == 3
    assert f"did not write: {folder / '.mcp.json'}; nothing" in error["error"]


def test_a_command_path_with_spaces_is_one_program(tmp_path: Path) -> None:
    folder, tether = tmp_path / "plugin", program(tmp_path / "my tools" / "tether")
    done = configure(folder, tether)
    assert done.code == 0, done.stderr
    assert mcp_command(folder) == {"command": str(tether), "args": ["mcp"]}
    hooks = json.loads((folder / HOOKS).read_text(encoding="utf-8"))
    prompt = hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert prompt == f"'{tether}' hook prompt"
    lsp = json.loads((folder / ".lsp.json").read_text(encoding="utf-8"))["tether"]
    assert (lsp["command"], lsp["args"]) == (str(tether), ["lsp"])


def test_a_relative_command_path_is_written_absolute(tmp_path: Path) -> None:
    tether = program(tmp_path / "venv" / "bin" / "tether")
    done = run_tether("agent-config", "opencode", "--command", "venv/bin/tether", cwd=tmp_path)
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["mcp"]["tether"]["command"] == [str(tether), "mcp"]


def test_a_command_that_cannot_run_is_refused_unless_allowed(tmp_path: Path) -> None:
    folder = tmp_path / "plugin"
    missing = tmp_path / "my tools" / "tether"
    done = configure(folder, missing)
    assert done.code == 2
    assert f"--command: the program '{tmp_path}/my' does not exist" in done.stderr
    assert "--allow-missing" in done.stderr and not folder.exists()
    program(missing, executable=False)
    done = configure(folder, missing)
    assert done.code == 2 and f"'{missing}' is not executable" in done.stderr
    done = run_tether("agent-config", "opencode", "--command", "no-such-tether", cwd=tmp_path)
    assert done.code == 2 and "'no-such-tether' is not on PATH" in done.stderr
    done = configure(folder, missing, "--allow-missing")
    assert done.code == 0, done.stderr
    assert mcp_command(folder) == {"command": str(missing), "args": ["mcp"]}


def test_a_default_plugin_folder_that_is_a_link_is_not_written_through(tmp_path: Path) -> None:
    # a repository can commit tether-claude-plugin as a link to a folder outside it
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    (repo / "tether-claude-plugin").symlink_to(outside)
    tether = program(tmp_path / "bin" / "tether")
    done = run_tether("agent-config", "claude-code", "--command", str(tether), cwd=repo)
    assert done.code == 2, done
    assert f"{repo / 'tether-claude-plugin'} is a link to {outside}" in done.stderr
    assert "--dir" in done.stderr
    assert list(outside.iterdir()) == []
    # named with --dir, the folder the person chose is written
    named = run_tether("agent-config", "claude-code", "--dir", str(outside), "--command",
                       str(tether), cwd=repo)  # fmt: skip
    assert named.code == 0, named
    assert (outside / HOOKS).is_file()


def test_a_linked_folder_inside_the_plugin_folder_is_not_written_through(tmp_path: Path) -> None:
    folder, outside = tmp_path / "plugin", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "hooks").symlink_to(outside)
    done = configure(folder, program(tmp_path / "bin" / "tether"))
    assert done.code == 2, done
    assert f"{folder / 'hooks'} is a link where a folder is needed (for {HOOKS})" in done.stderr
    assert list(outside.iterdir()) == []
    assert not (folder / MANIFEST).exists()  # nothing was written
