"""Pins the judgement constants of the store, the language server, the browser, the hooks and
the trust gate that no other test holds to a value, with the relations their reasons state;
each must keep its one-line reason next to it."""

from __future__ import annotations

import ast
import inspect
import itertools
from types import ModuleType

import pytest

from lsp_server import commands, listing, nested_look
from mcp_server import limits as mcp_limits
from mcp_server.tools import TOOL_NAMES
from recall import (
    closest_names,
    extra_keys,
    ignored_store,
    private_store,
    search,
    secret_places,
    secret_rules,
    settings,
    work_tree,
    written_checks,
    yaml_shared,
)
from recall.anchors import submodules
from recall.browse import actions
from recall.cli import cmd_agent_config
from recall.cli import main as cli_main
from recall.genome.symbols import grammars, layout, model, treesitter
from recall.genome.symbols import index as symbol_index
from recall.genome.symbols.extract import extract
from recall.hooks import events as hook_events
from recall.model import CATEGORIES, SOURCES
from recall.policy import hints, trust
from recall.store import MemoryStore, changes
from recall.store import opening as store

PINNED = [
    (store, "_UNWRITABLE_ATTEMPTS", 4),
    (store, "_UNWRITABLE_PAUSE", 0.05),
    (commands, "INDEXING_WAIT_SECONDS", 30.0),
    (listing, "LIST_LIMIT", 500),
    (nested_look, "NESTED_LOOK_FOLDERS", 2000),
    (written_checks, "NEUTRAL_SUMMARY", "-"),
    (listing, "STORE_KEY_CHARS", 16),
    (mcp_limits, "LIST_LIMIT", 50),
    (actions, "SEARCH_LIMIT", 200),
    (trust, "GIT_TIMEOUT_S", 10),
    (ignored_store, "IGNORE_CHECK_TIMEOUT_S", 5),
    (ignored_store, "PRIVATE_SETTING", "private_memories"),
    (settings, "PRIVATE_MEMORIES", False),
    (private_store, "GIT_TIMEOUT_S", 10),
    (private_store, "TRACKED_SHOWN", 3),
    (work_tree, "ASK_TIMEOUT_S", 5),
    (cli_main, "OWN_HOME_NOTES", frozenset({"hook", "lsp", "mcp", "warm"})),
    (work_tree, "GIT_PLACE_VARIABLES", ("GIT_DIR", "GIT_WORK_TREE")),
    (extra_keys, "NEAR_KEY_CUTOFF", 0.8),
    (closest_names, "SUGGESTED_PER_MEMORY", 10),
    (closest_names, "COMPARED_NAMES", 200),
    (yaml_shared, "EXPANDED_FLOOR", 64 * 1024),
    (yaml_shared, "EXPANSION_FACTOR", 4),
    (secret_places, "NAME_LOOKBACK", 256),
    (secret_rules, "PLACEHOLDER_MAX_CHARS", 256),
    (symbol_index, "READER", "r8"),
    (search, "LIMIT_CAP", 1 << 31),
    (changes, "CHAIN_STEPS", 100),
    (submodules, "PATHSPEC_MAX", 256),
    (layout, "INDENT_STEP", 4),
    (model, "LEGACY_HASH_CHARS", 12),
    (model, "INDENTED_HASH_CHARS", 16),
    (model, "CODE_HASH_CHARS", 20),
    (grammars, "INDENTED_GRAMMARS", frozenset({"python"})),
    (
        grammars,
        "LANGUAGE_FAMILIES",
        (frozenset({"c", "cpp", "objc"}), frozenset({"javascript", "typescript", "tsx"})),
    ),
    (
        hook_events,
        "MCP_SELF_SERVE",
        frozenset({"memory_recall", "memory_get", "memory_write", "memory_list"}),
    ),
]


def _reason(module: ModuleType, name: str) -> str | None:
    """The string right after ``name``'s assignment at the top of ``module``, if any."""
    body = ast.parse(inspect.getsource(module)).body
    for here, after in itertools.pairwise(body):
        targets = here.targets if isinstance(here, ast.Assign) else [getattr(here, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                return str(after.value.value)
            return None
    raise AssertionError(f"{module.__name__} assigns no {name}")


@pytest.mark.parametrize(
    ("module", "name", "value"), PINNED, ids=[f"{m.__name__}.{n}" for m, n, _ in PINNED]
)
def test_each_constant_has_its_value_and_a_reason(
    module: ModuleType, name: str, value: object
) -> None:
    assert getattr(module, name) == value
    reason = _reason(module, name)
    assert reason and len(reason.split()) >= 8, f"{module.__name__}.{name} says not why"


def test_an_unwritable_index_is_told_within_a_second() -> None:
    """The retries ride out a writer closing the index, and a full disk is told within a
    second: the pauses between the tries (growing linearly) add up to less."""
    pauses = [store._UNWRITABLE_PAUSE * (n + 1) for n in range(store._UNWRITABLE_ATTEMPTS - 1)]
    assert sum(pauses) == pytest.approx(0.3)
    assert sum(pauses) < 1.0


def test_the_two_list_limits_serve_different_readers() -> None:
    """A person scrolls the editor's list; an agent's list lands in its context window."""
    assert listing.LIST_LIMIT == 10 * mcp_limits.LIST_LIMIT
    assert listing.LIST_LIMIT <= mcp_limits.LIST_MAX  # an agent can page as far as the editor
    assert "context" in (_reason(mcp_limits, "LIST_LIMIT") or "")
    assert "context" in (_reason(listing, "LIST_LIMIT") or "")


def test_mcp_self_serve_tools_are_the_twins_of_the_self_serve_commands() -> None:
    """Reading or writing memory unprompted ends the hints; reacting to what was shown does
    not, through the MCP tools as through the CLI."""
    twins = {
        "memory_recall": "recall",
        "memory_get": "show",
        "memory_write": "remember",
        "memory_list": "list",
        "memory_supersede": "supersede",
        "memory_pin": "pin",
        "memory_archive": "archive",
    }
    assert set(twins) == set(TOOL_NAMES)
    self_serve = {tool for tool, cmd in twins.items() if cmd in hints.SELF_SERVE_COMMANDS}
    assert self_serve == hook_events.MCP_SELF_SERVE


def test_one_git_call_never_outlasts_the_agent_hook_budget() -> None:
    """A hung git is cut off no later than the agent would give up on the whole hook."""
    assert trust.GIT_TIMEOUT_S <= cmd_agent_config.HOOK_TIMEOUT_SECONDS


def test_each_hash_form_is_told_apart_by_its_length() -> None:
    """A hash of each form has the length that form is recognised by, and no two forms share
    one: a recorded hash is compared with the definition's hash of its own form."""
    text = b"def f():\n    return 1"
    assert len(model.body_hash(text)) == model.LEGACY_HASH_CHARS
    assert len(model.indented_hash(text)) == model.INDENTED_HASH_CHARS
    assert len(model.tight_hash(text)) == len(model.python_hash(text)) == model.CODE_HASH_CHARS
    forms = {model.LEGACY_HASH_CHARS, model.INDENTED_HASH_CHARS, model.CODE_HASH_CHARS}
    assert len(forms) == 3


def test_the_neutral_summary_passes_every_check_a_write_makes(store: MemoryStore) -> None:
    """A field is checked beside :data:`recall.written_checks.NEUTRAL_SUMMARY`: it passes the
    summary checks and the credential scan in every category and from every source, so a
    field's refusal never turns into one of the summary."""
    for category, source in itertools.product(CATEGORIES, SOURCES):
        store.prepare_memory(
            summary=written_checks.NEUTRAL_SUMMARY, category=category, files=[], source=source
        )
    memory = store.prepare_memory(summary="a clean summary", category="gotcha", files=[])
    found = written_checks.refusals(
        store,
        memory.with_changes(details="line \x01two"),
        replace=lambda held: f"supersede {held}",
        secret_override="say so",
    )
    assert [refusal.field for refusal in found] == ["details"]


def test_only_python_functions_name_what_they_define_inside() -> None:
    """A Python function's nested helpers are named under it (``outer.inner``); a function of
    any other grammar holds callbacks and locals, none of them named."""
    assert frozenset({"python"}) == treesitter._NESTING_FUNCTIONS
    python = extract("a.py", b"def outer():\n    def inner():\n        pass\n")
    assert [d.name for d in python.definitions] == ["outer", "outer.inner"]
    script = extract("a.js", b"function outer() { function inner() {} }\n")
    assert [d.name for d in script.definitions] == ["outer"]
