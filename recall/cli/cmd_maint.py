"""Maintenance commands: reindex, doctor, repoint and confirm."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from recall import privacy, unloaded
from recall.anchors.anchor_updates import files_left_by, repointed_anchors
from recall.anchors.defined_names import genome_names
from recall.anchors.guards import idle_guard
from recall.anchors.states import moved_anchors, suggestions
from recall.anchors.suggest import SUGGESTIONS_KEY
from recall.anchors.symbols import anchors_to_field
from recall.anchors.tree_reads import tree_reads
from recall.cli.context import CommandContext
from recall.cli.doctor_git import git_findings
from recall.cli.doctor_links import link_findings
from recall.cli.doctor_place import FindingPlace
from recall.cli.maint_messages import dead_message, drift_message
from recall.cli.render import ID_HELP, scope_option
from recall.display import plural, visible
from recall.errors import NothingToDo
from recall.frontmatter import REMOVE
from recall.known_paths import in_unopened, tree_paths
from recall.lifecycle.confirming import confirm
from recall.lifecycle.dead import (
    dead_reference,
    deleted_after_rename,
    renamed_then_gone,
    renames,
    repointed,
    unopened_files,
)
from recall.lifecycle.links import key_line
from recall.lifecycle.references import (
    CONFIRMED_KEY,
    FORMER_FILES_KEY,
    GIVEN_FILES_KEY,
    drift,
    given_files,
    named_by_person,
    with_lifecycle_keys,
)
from recall.lifecycle.uncommitted import not_repointed
from recall.locations import GLOBAL, not_a_folder
from recall.misspelt_keys import misspelt_keys
from recall.policy.usage import record_action
from recall.read_as import store_retyped
from recall.repo_signals import project_genome as repo_genome
from recall.secret_lines import secret_lines
from recall.store import MemoryStore
from recall.store.across import fresh_id, shared_id_message, shared_ids
from recall.stored_rules import WRITE_REFUSES, doctor_lines


def register(sub: argparse._SubParsersAction) -> None:
    """Add reindex, doctor, repoint and confirm to the CLI."""
    p = sub.add_parser("reindex", help="rebuild the index from the memory files (code map kept)")
    p.add_argument(
        "--global", dest="global_", action="store_true", help="rebuild the user-wide store's index"
    )
    p.set_defaults(func=run_reindex)

    p = sub.add_parser(
        "doctor",
        help="list memory files that cannot be loaded, dead and drifting references "
        "(exit 1 if any)",
    )
    scope_option(p)
    p.set_defaults(func=run_doctor)

    p = sub.add_parser(
        "repoint", help="propose the new names of a memory's renamed files; --apply writes them"
    )
    p.add_argument("id", help=ID_HELP)
    p.add_argument("--apply", action="store_true", help="rewrite the memory's file list")
    p.set_defaults(func=run_repoint)

    p = sub.add_parser("confirm", help="mark a memory as still true (clears its spot-check)")
    p.add_argument("id", help=ID_HELP)
    p.set_defaults(func=run_confirm)


def run_reindex(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Drop and rebuild the index of one store."""
    store = ctx.global_store() if args.global_ else ctx.project()
    fresh = store.scope == "project" and not store.exists
    with ctx.progress() as update:
        store.reindex(update)
    if fresh:  # a repository never set up is set up on the way: said, as remember says it
        ctx.say_created(store)
    # each entry left out, by name (the count alone says not which): the files that cannot
    # be loaded and the links, folders and such named like one, counted as they are named
    skipped = ctx.say_skipped([store])
    data = {"memories": store.count(), "problems": skipped, "scope": store.scope}
    data["skipped"] = ctx.skipped_entries(store)  # every one, also past those said on stderr
    said = f"Reindexed {plural(data['memories'], 'memory')}"
    if skipped:
        said += f" ({plural(skipped, 'memory file')} skipped: `tether doctor` lists them)"
    ctx.emit(data, lambda c: c.print(said))
    return 0


def project_genome(store: MemoryStore, ctx: CommandContext) -> Any | None:
    """The project's genome for a project store that exists; None otherwise (no history):
    :func:`recall.repo_signals.project_genome`, its notices said as the command's."""
    return repo_genome(store, notice=ctx.notice)


def run_doctor(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Report every problem file as path:line: message, superseded memories whose replacement
    is in neither store, then dead and drifting references."""
    problems = []
    lines: list[str] = []
    data: list[dict[str, Any]] = []
    notes = 0  # findings said that fail nothing (memories git ignores on purpose)
    about_private: list[str] = []  # what reading the setting says: told with settings problems
    stores = ctx.stores(args.scope)  # outside any repository, with no global store: refused
    project = ctx.folder.project_if_any()  # a link may name a memory of either store
    known = (project, ctx.folder.global_if_usable())
    everywhere = [store for store in known if store is not None]
    ctx.say_not_set_up(stores, odd_folder=False)  # nothing found: nothing set up here
    for store in stores:
        loose = privacy.warning(store.location) if store.scope == "global" else None
        if loose is not None:
            data.append({"scope": store.scope, "kind": "permissions", "message": loose})
            lines.append(loose)
        for name, what in unloaded.skipped(store.folder.path):
            path = store.folder.path / name
            message = unloaded.skipped_message(path, what)
            data.append(
                {"scope": store.scope, "kind": "skipped", "path": str(path), "message": message}
            )
            lines.append(message)
        folder = store.location.memories_dir
        if os.path.lexists(folder) and not folder.is_dir():
            message = not_a_folder(folder)
            data.append(
                {"scope": store.scope, "kind": "folder", "path": str(folder), "message": message}
            )
            lines.append(message)
        for entry, message, note in git_findings(store, about_private.append):
            data.append({"scope": store.scope, **entry})
            lines.append(message)
            notes += note
        for name in unloaded.left_behind(store.folder.path, time.time()):
            message = unloaded.left_behind_message(store.folder.path / name)
            path = str(store.folder.path / name)
            data.append(
                {"scope": store.scope, "kind": "leftover", "path": path, "message": message}
            )
            lines.append(message)
        for name, why in unloaded.unread(store.folder.path):
            path = store.folder.path / name
            message = f"{path}: {why}"
            data.append(
                {"scope": store.scope, "kind": "unread", "path": str(path), "message": message}
            )
            lines.append(message)
        for problem in store.problems():
            problems.append(problem)
            lines.append(str(problem))
            data.append(
                {
                    "scope": store.scope,
                    "path": str(problem.path),
                    "line": problem.line,
                    "message": problem.message,
                }
            )
        for found_key in misspelt_keys(store):
            message = found_key.message()
            entry = {"scope": store.scope, "kind": "misspelt-key", "path": str(found_key.path)}
            where = {"id": found_key.memory_id, "line": found_key.line}
            said = {"key": found_key.key, "meant": found_key.meant, "message": message}
            data.append({**entry, **where, **said})
            lines.append(message)
        for memory_id, path, retyped in store_retyped(store):  # a key of one's own: a note
            said = retyped.note() if retyped.read_by_tether else f"note: {retyped.note()}"
            message = f"{path}:{retyped.line}: {memory_id}: {said}"
            entry = {"scope": store.scope, "kind": "read-as", "path": str(path), "id": memory_id}
            data.append({**entry, **retyped.to_dict(), "message": message})
            lines.append(message)
            notes += not retyped.read_by_tether
        for found_secret in secret_lines(store):
            message = found_secret.message()
            entry = {"scope": store.scope, "kind": "credential", "path": str(found_secret.path)}
            data.append({**entry, **found_secret.to_dict(), "message": message})
            lines.append(message)
        for memory, path, line, rule in doctor_lines(store):
            message = f"{path}:{line}: {memory.id}: {rule.problem}; {WRITE_REFUSES}: {rule.fix}"
            entry = {"scope": store.scope, "kind": "write-rule", "path": str(path)}
            data.append(
                {**entry, "id": memory.id, "line": line, "key": rule.key, "message": message}
            )
            lines.append(message)
        for finding in link_findings(store, everywhere):
            data.append(finding)
            lines.append(finding["message"])
        if store.scope == GLOBAL:  # a guard there protects nothing: said, left as it is
            for memory in store.list(status="active"):
                if memory.guard:
                    path = store.path_of(memory.id)
                    message = f"{path}:{key_line(path, 'guard')}: {idle_guard(memory.id)}"
                    entry = {"scope": store.scope, "kind": "global-guard", "path": str(path)}
                    data.append({**entry, "id": memory.id, "message": message})
                    lines.append(message)
        genome = project_genome(store, ctx)
        if genome is None:
            continue
        tree: list[str] | None = None  # listed once, for the first dead reference
        names = genome_names(genome)  # each file's names read once, for gone anchors only
        memories = store.list(status="active")
        # the anchored files the working tree holds otherwise than the index read them
        now = tree_reads(genome, [a for memory in memories for a in memory.anchors])
        unopened: dict[str, set[str]] = {}  # submodule folder -> the memories naming files in it
        for memory in memories:
            for folder in unopened_files(memory, genome).values():
                unopened.setdefault(folder, set()).add(memory.id)
            dead = dead_reference(memory, genome)
            found = None if dead else drift(with_lifecycle_keys(store, memory), genome)
            at = FindingPlace(store, memory.id)
            if dead is not None:
                if tree is None and store.repo_root is not None:
                    tree = tree_paths(store.repo_root)
                gone = renamed_then_gone(memory, genome)
                message = at.line("files", dead_message(dead, tree, gone, store.repo_root))
                entry = {**at.entry("dead-reference"), **dead.to_dict()}
                if gone:
                    entry["renamed_then_deleted"] = gone
                data.append({**entry, "message": message})
                lines.append(message)
            elif moved := renames(memory, genome):
                arrows = ", ".join(f"{old} -> {new}" for old, new in moved.items())
                message = at.line(
                    "files",
                    f"{memory.id}: names files git shows renamed, {arrows}; recall follows "
                    f"them (`tether repoint {memory.id} --apply` writes the names)",
                )
                entry = {**at.entry("renamed"), "id": memory.id}
                data.append({**entry, "renamed": moved, "message": message})
                lines.append(message)
            if found is not None:
                message = at.line("files", drift_message(found))
                data.append({**at.entry("drift"), **found.to_dict(), "message": message})
                lines.append(message)
            for state in moved_anchors(memory, genome, names, now):
                said = f"{memory.id}: symbol {state.describe()}{state.advice(memory.id)}"
                message = at.line("anchors", said)
                found = state.to_dict()  # its path, where the symbol is now, as symbol_path
                found["symbol_path"] = found.pop("path")
                found.update(suggestions([state]))
                data.append({**at.entry("anchor"), "id": memory.id, **found, "message": message})
                lines.append(message)
        for folder, ids in sorted(unopened.items()):  # the clone's state, not the memories' fault
            verb = "names" if len(ids) == 1 else "name"
            ctx.notice(
                f"{plural(len(ids), 'memory')} {verb} files {in_unopened(folder)}: whether "
                "they are still there is not told"
            )

    for memory_id, where in shared_ids(everywhere):  # no id reaches either: said whatever scope
        message = shared_id_message(memory_id, where, fresh_id(everywhere))
        entry = {"scope": where[-1][0].scope, "kind": "same-id", "path": str(where[-1][1])}
        paths = [str(path) for _, path in where]
        data.append({**entry, "id": memory_id, "paths": paths, "message": message})
        lines.append(message)
    for message in dict.fromkeys([*_settings_problems(ctx, args.scope), *about_private]):
        data.append({"kind": "settings", "message": message})
        lines.append(message)

    def render(console) -> None:
        for line in lines:  # one line each: a name may hold a line break
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
        if len(lines) == notes:
            console.print("No problems found.")

    verdict = 1 if len(data) > notes else 0
    ctx.emit(data, render, verdict=verdict)
    return verdict


def _settings_problems(ctx: CommandContext, scope: str) -> list[str]:
    """What reading the settings files says (a file that does not parse, an unknown or
    misspelt key, a key in the wrong file, one setting given twice, a value the engine or
    the language server ignores): the repository's for the project scope, the user's own for
    the global one, both for all."""
    from recall.server_settings import check_values
    from recall.settings import file_sources, merge, user_sources

    said: list[str] = []
    project = ctx.folder.project_if_any()
    root = project.repo_root if project is not None else None
    if scope != "global":
        sources = file_sources(root, said.append)
        merge([], said.append, repository=sources)
        check_values(sources, said.append)
    if scope != "project":
        merge(user_sources(said.append, root), said.append)
    return said


def run_repoint(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Show the file list a memory would get from git's renames; write it with --apply."""
    store, memory = ctx.find_memory(args.id)
    genome = project_genome(store, ctx)
    moved = renames(memory, genome) if genome is not None else {}
    anchors, symbol_moves = repointed_anchors(memory, genome)
    gone = renamed_then_gone(memory, genome) if genome is not None and not moved else {}
    if gone and not symbol_moves:
        raise NothingToDo(
            f"memory {memory.id}: git shows {deleted_after_rename(gone)}: no file to repoint it "
            f"to; edit the files: list of {store.path_of(memory.id)} or `tether archive "
            f"{memory.id}`"
        )
    if not moved and not symbol_moves:
        raise NothingToDo(not_repointed(memory, store.repo_root))
    full = with_lifecycle_keys(store, memory)
    files, former = repointed(full, moved)
    moved_paths = [a.path for a in anchors if a.text in symbol_moves.values()]
    files += [path for path in dict.fromkeys(moved_paths) if path not in files]
    # a file named only for anchors that all moved away holds nothing the memory is about;
    # the older single ``anchor`` is about the memory's file, so that keeps every file, and
    # so does the person's naming it (their files stay until they take them out)
    named = [moved.get(path, path) for path in named_by_person(full)]
    left = [] if memory.anchor else files_left_by(memory.anchors, anchors)
    kept = [path for path in left if path in files and path in named]
    left = [path for path in left if path in files and path not in named]
    files = [path for path in files if path not in left]
    given = given_files(named, anchors)  # renamed with the files, and of the anchors now
    former = list(dict.fromkeys([*former, *left]))
    data: dict[str, Any] = {
        "id": memory.id,
        "files": list(memory.files),
        "proposed": files,
        "renamed": moved,
        "symbols_moved": symbol_moves,
        "files_dropped": left,
        "files_kept": kept,
        "applied": bool(args.apply),
    }
    if args.apply:
        changes: dict[str, Any] = {"files": files}
        if moved or left:
            changes[FORMER_FILES_KEY] = former
        if symbol_moves:
            changes["anchors"] = anchors_to_field(anchors)
        if given != full.extra.get(GIVEN_FILES_KEY, []):
            changes[GIVEN_FILES_KEY] = given or REMOVE
        store.update_unchanged(memory, changes)  # as it was when the renames were read
        record_action(store.conn, memory.id)

    def render(console) -> None:
        for old, new in [*moved.items(), *symbol_moves.items()]:
            console.print(visible(f"{old} -> {new}"), markup=False, highlight=False, soft_wrap=True)
        for path in left:
            line = f"{path}: dropped from the files (every anchor in it moved away)"
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
        for path in kept:
            line = f"{path}: kept in the files, named by you (every anchor in it moved away)"
            console.print(visible(line), markup=False, highlight=False, soft_wrap=True)
        if args.apply:
            console.print(f"Repointed {memory.id}; the old paths stay in {FORMER_FILES_KEY}")
        else:
            console.print(f"Nothing written; run `tether repoint {memory.id} --apply` to apply")

    ctx.emit(data, render)
    return 0


def run_confirm(args: argparse.Namespace, ctx: CommandContext) -> int:
    """Record that a memory was checked and still holds (drift counts restart from now); an
    anchored symbol the working tree no longer defines is named on stderr, with what to do."""
    store, memory = ctx.find_memory(args.id)
    done = confirm(store, memory, project_genome(store, ctx))
    data: dict[str, Any] = {"id": done.memory.id, CONFIRMED_KEY: done.stamp}
    if done.not_found:
        data["not_confirmed"] = [anchor.text for anchor in done.not_found]
        data["notes"] = done.not_found_notes()
    if done.close:  # the names its file defines now, spelt closest, by anchor
        data[SUGGESTIONS_KEY] = {anchor: list(names) for anchor, names in done.close.items()}

    def render(console) -> None:
        left = len(done.not_found)
        but = f", all but {plural(left, 'anchored symbol')}" if left else ""
        line = f"Confirmed {done.memory.id} as of {done.stamp}{but}"
        console.print(line, markup=False, highlight=False, soft_wrap=True)
        for note in done.not_found_notes():
            ctx.notice(visible(note))

    ctx.emit(data, render)
    return 0
