"""Settings Tether reads from files: a repository's ``[tool.tether]`` in ``pyproject.toml``,
then its ``.tether/config.toml``, then the user's own ``config.toml`` in the Tether home
(``TETHER_HOME`` or the user data folder); a later file wins a key an earlier one set.

A repository is untrusted input (anyone can clone one), so a few keys are the user's alone
(:data:`USER_ONLY`): a repository file that sets one is named in a warning and ignored. A limit
declared ``only_lower`` in :class:`EngineSettings` a repository may lower but not raise above
its default: a higher value in its files is said, naming the user's own file to set it in.

The engine's configurable numbers are :class:`EngineSettings`; the language server reads the
repository's files for its own keys (``lsp_server.configuration``), so each reader skips the
other's keys. Keys may be written camelCase, snake_case or kebab-case. A bad value is reported,
naming the file and the line of the key (``path:line:``, :mod:`recall.toml_lines`) and the key,
and the value before it is kept.

Adding a setting is one line in :class:`EngineSettings`: a field whose default is
``setting(CONSTANT, parser)`` (:mod:`recall.config_fields`, which the language server's settings
use too). The constant lives with the code that uses it, with its reason; the parser (the
common ones are in :mod:`recall.config_fields`; any ``Callable[[Any], T]`` raising
``ValueError`` with what to write instead) checks a value read from a file.

A key in a file that no reader knows (a misspelling, most likely) is reported once per
reading, naming the file, the key's line and the key and suggesting the closest known key; it
is never applied.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from recall import config_fields
from recall.config_fields import (
    Parse,
    Warn,
    apply,
    count,
    flag,
    fold_key,
    keys_of,
    names,
    positive,
    setting,
)
from recall.distill_words import DEFAULT_CATEGORIES as DISTILL_CATEGORIES
from recall.distill_words import MAX_PER_SESSION as DISTILL_MAX
from recall.errors import BadInput
from recall.lifecycle import (
    ARCHIVE_MIN_SURFACINGS,
    ARCHIVE_WINDOW_DAYS,
    CLEANUP_MIN_ACTIVE,
    CLEANUP_MIN_SESSIONS,
    CLEANUP_MIN_STALE,
)
from recall.locations import check_home, global_base, global_location
from recall.model import CATEGORIES
from recall.toml_lines import FileTable, place, read_toml
from recall.warm.protocol import AUTO_START as WARM_ENGINE

INJECT_OTHERS: Final = True
"""Default: other authors' project memories are injected, labelled with their author. They
are files committed to a repository the user chose to work in, reviewed in pull requests like
its code, which the agent reads anyway; and what is injected is at most three one-line
summaries, capped, stripped of control characters and fenced as data, never the details. A
user who works in repositories they do not trust turns it off (``TETHER_INJECT_OTHERS=0``),
and a repository can turn it off for everyone (``inject_others = false``)."""

PRIVATE_MEMORIES: Final = False
"""Default: a repository's memory files are meant to be committed and reviewed like its code
(``tether init`` says so), so git ignoring them is a problem ``tether doctor`` reports; a person
who keeps them to their clone on purpose says so with ``private_memories = true``."""

Source = tuple[str, Mapping[str, Any]]


# -- the files -------------------------------------------------------------------------------

USER_CONFIG_NAME: Final = "config.toml"
"""The user's own settings file, in the Tether home (next to the global store)."""

USER_ONLY: Final[Mapping[str, str]] = {
    "distill_command": "it names a program for Tether to run, and a cloned repository must "
    "never choose what runs on your machine",
    "embedder": "it names Python code for Tether to import and run, and a cloned repository "
    "must never choose what runs on your machine",
}
"""Fields of :class:`EngineSettings` read from the user's own file only, with the reason.

``auto_distill`` is not here on purpose: a repository may turn it on for its team. What it
starts is the built-in heuristic alone (no program of the repository's choosing), over the
local history, and it only proposes: its memories are written as ``pending`` files, visible in
``git status``, never recalled until a person confirms them, capped per session and removed
together by ``tether purge --auto-distilled``. The user's own file is read last, so
``auto_distill = false`` there turns it off whatever a repository says."""


def user_config_path() -> Path:
    """The user's own settings file: ``config.toml`` in the Tether home."""
    return global_base() / USER_CONFIG_NAME


def file_sources(repo_root: Path | None, warn: Warn) -> list[Source]:
    """The settings tables of a repository: ``[tool.tether]``, then ``.tether/config.toml``.

    Keys of :data:`USER_ONLY` are taken out of them, each with a warning naming the file and
    saying where to write it instead.
    """
    if repo_root is None:
        return []
    found: list[Source] = []
    pyproject = repo_root / "pyproject.toml"
    data, text = _read_repository_toml(pyproject, repo_root, warn)
    table = data.get("tool", {}).get("tether") if isinstance(data.get("tool"), dict) else None
    if isinstance(table, dict):
        name = f"{pyproject} [tool.tether]"
        found.append((FileTable(name, pyproject, ("tool", "tether"), text, data), table))
    elif table is not None:
        tool = FileTable(str(pyproject), pyproject, ("tool",), text, data)
        warn(
            f"{tool.place('tether')}: tool.tether ignored: it must be a table (a [tool.tether] "
            f"section of key = value lines), not {_toml_kind(table)}"
        )
    own = repo_root / ".tether" / "config.toml"
    data, text = _read_repository_toml(own, repo_root, warn)
    if data:
        found.append((FileTable(str(own), own, (), text, data), data))
    for name, values in found:
        for line in unknown_keys(name, values):
            warn(line)
    return [(name, _without_user_only(name, values, warn)) for name, values in found]


def _read_repository_toml(path: Path, repo_root: Path, warn: Warn) -> tuple[dict[str, Any], str]:
    """A repository's settings file and its text, unless it is a link to a file outside the
    repository."""
    from recall.containment import repository_file_inside

    if not repository_file_inside(path, repo_root):
        warn(f"{path}: not read: it is a symbolic link to a file outside the repository")
        return {}, ""
    return read_toml(path, warn)


def _without_user_only(source: str, values: Mapping[str, Any], warn: Warn) -> dict[str, Any]:
    """A repository's table without the keys only the user may set, each refusal said."""
    known = engine_keys()
    kept: dict[str, Any] = {}
    for raw_key, value in values.items():
        entry = known.get(fold_key(str(raw_key)))
        if entry is not None and entry[0] in USER_ONLY:
            warn(
                f"{place(source, str(raw_key))}: {raw_key} ignored: a repository cannot set it, as "
                f"{USER_ONLY[entry[0]]}; to use it, put it in your own {user_config_path()}"
            )
            continue
        kept[raw_key] = value
    return kept


def user_sources(warn: Warn, repo_root: Path | None = None) -> list[Source]:
    """The user's own settings table (``config.toml`` in the Tether home), if there is one.

    It holds the engine's keys only; the language server's keys belong in a repository's files
    or the editor's settings, so one written here is reported, like an unknown key. None is
    read from a home that cannot be the user-wide store's for ``repo_root`` (the repository
    the settings are for: :func:`recall.locations.global_location`): one inside it would
    let the repository set what only the user may, such as the code an embedder runs.
    """
    try:
        if repo_root is None:
            check_home()
        else:
            global_location(repo_root)  # which checks the home first
    except BadInput as error:  # said once, with the user-wide store's note when a command has one
        from recall.settings_home import tell

        tell(str(error))
        return []
    path = user_config_path()
    values, text = read_toml(path, warn)
    if not values:
        return []
    source = FileTable(str(path), path, (), text, values)
    known = engine_keys()
    server = {fold_key(name): name for name in SERVER_KEYS}
    for raw_key in values:
        folded = fold_key(str(raw_key))
        if folded in known:
            continue
        if folded in server:
            warn(
                f"{source.place(str(raw_key))}: {raw_key} ignored: the language server reads it "
                "from a repository's files or the editor's settings, not from this file"
            )
            continue
        for line in unknown_keys(source, {raw_key: None}):
            warn(line)
    return [(source, values)]


def _toml_kind(value: Any) -> str:
    """What a TOML value is, in TOML's words, with the value: ``an integer (5)``."""
    kinds = ((bool, "a boolean"), (int, "an integer"), (float, "a float"), (str, "a string"))
    kind = next((name for cls, name in kinds if isinstance(value, cls)), None)
    if kind is None:
        kind = "an array" if isinstance(value, list) else "a date or time"
    return f"{kind} ({value!r})"


# -- keys no reader knows --------------------------------------------------------------------

SERVER_KEYS: Final = (
    "diagnostic_categories",
    "categories",
    "severity",
    "client_severity",
    "guard_severity",
    "max_per_file",
    "hint_quiet_turns",
    "hint_session_budget",
    "max_document_chars",
    "index_on_start",
    "warm_files",
    "watch_workspace",
    "trusted_workspace",
)
"""Keys the language server reads from the same files (``lsp_server.configuration``). The
engine never imports the server, yet must not call the server's keys unknown; a test keeps this
list equal to the server's."""


def known_keys() -> dict[str, str]:
    """Every key a repository's settings may hold, folded, mapped to the name to suggest: the
    engine's (aliases included, suggested as their field) and the language server's."""
    known = {folded: name for folded, (name, _parse) in engine_keys().items()}
    known.update({fold_key(name): name for name in SERVER_KEYS})
    return known


def closest_key(raw_key: str) -> str | None:
    """The key a settings file may hold most like ``raw_key``, spelled as ``raw_key`` is;
    None when none is alike enough (see :data:`recall.config_fields.SUGGEST_CUTOFF`)."""
    return config_fields.closest_key(raw_key, known_keys())


def unknown_keys(source: str, values: Mapping[str, Any]) -> list[str]:
    """One warning per key of ``values`` that neither the engine nor the server reads, naming
    ``source`` (the file) and the key, with the closest known key when there is one."""
    return config_fields.unknown_keys(source, values, known_keys())


# -- value parsers ---------------------------------------------------------------------------


def command_line(value: Any) -> tuple[str, ...]:
    """A command to run: a list of words, or one string split like a shell would (no shell
    runs it); empty means none."""
    import shlex  # only when a file sets a command

    if isinstance(value, str):
        try:
            return tuple(shlex.split(value))
        except ValueError as error:
            raise ValueError(f"cannot split it into words ({error})") from None
    if isinstance(value, list | tuple) and all(isinstance(i, str) for i in value):
        return tuple(value)
    raise ValueError('give a command line ("llm-distill --json") or a list of its words')


EMBEDDER_DEFAULT: Final = "hash"
"""The built-in hash-bag embedder: deterministic, no model, no network, no import cost."""


def embedder_spec(value: Any) -> str:
    """``"hash"`` or ``"package.module:Name"`` (a class, factory or object with ``embed`` and
    ``embed_many``); its import is tried when recall first needs it."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError('give "hash" or "package.module:ClassName"')
    spec = value.strip()
    if spec == EMBEDDER_DEFAULT:
        return spec
    module, sep, attr = spec.partition(":")
    dotted = (module, *attr.split("."))
    if not sep or not all(part.isidentifier() for name in dotted for part in name.split(".")):
        raise ValueError(f'{spec!r} is not "hash" or "package.module:ClassName"')
    return spec


# -- the engine's settings -------------------------------------------------------------------


@dataclass(frozen=True)
class EngineSettings:
    """The engine's configurable numbers. Each key in a file is the field name, in any spelling
    (``archive_window_days``, ``archive-window-days``, ``archiveWindowDays``).

    A repository's settings may lower an ``only_lower`` limit but not raise it above its
    default; the user's own file may set any valid value. ``distill_max`` is one: raising it
    costs the user's attention (more pending memories to review, in ``git status`` and the
    store). The others are not: the archive thresholds say when an ignored memory is ignored
    enough, and the cleanup ones when a cleanup is worth suggesting, which is the team's
    judgement either way (raised, less is archived or suggested; lowered, a memory is only
    archived, which ``tether restore`` undoes, and a suggestion is one line). A repository's
    values act on its own store only, never on the user-wide store
    (:mod:`recall.store_settings`)."""

    archive_by_disuse: bool = setting(True, flag)
    """Whether the session-start pass archives ignored memories at all."""
    archive_min_surfacings: int = setting(ARCHIVE_MIN_SURFACINGS, positive)
    archive_window_days: int = setting(ARCHIVE_WINDOW_DAYS, count)
    cleanup_min_sessions: int = setting(CLEANUP_MIN_SESSIONS, count)
    cleanup_min_active: int = setting(CLEANUP_MIN_ACTIVE, count)
    cleanup_min_stale: int = setting(CLEANUP_MIN_STALE, count)
    auto_distill: bool = setting(False, flag)
    """Whether session hooks propose pending memories from the session's commits (off: only
    ``tether distill`` run by hand does)."""
    distill_categories: tuple[str, ...] = setting(DISTILL_CATEGORIES, names(CATEGORIES))
    distill_max: int = setting(DISTILL_MAX, positive, only_lower=True)
    distill_command: tuple[str, ...] = setting((), command_line)
    """A command replacing the distill heuristic (see ``recall.distill.from_command``); the
    user's own file only (:data:`USER_ONLY`)."""
    embedder: str = setting(EMBEDDER_DEFAULT, embedder_spec)
    """The embedder of the semantic channel: the built-in hash-bag, or a provider's class
    (imported only when set; the user's own file only, :data:`USER_ONLY`)."""
    inject_others: bool = setting(INJECT_OTHERS, flag, only_off=True)
    """Whether other authors' project memories are injected into agent prompts (see
    ``recall.policy.trust``; the user's ``TETHER_INJECT_OTHERS=0`` turns it off whatever this
    says)."""
    warm_engine: bool = setting(WARM_ENGINE, flag)
    """Whether the session-start hook starts the project's warm engine (``tether warm``;
    ``TETHER_WARM=0`` turns it off, and its use, whatever this says)."""
    private_memories: bool = setting(PRIVATE_MEMORIES, flag)
    """Whether the project's memory files are kept out of git on purpose: ``tether doctor``
    then notes an ignore rule instead of failing on it, and fails when git would commit them
    (``recall.private_store``)."""


def engine_keys() -> dict[str, tuple[str, Parse]]:
    """Every accepted key (folded) mapped to its field name and parser."""
    return keys_of(EngineSettings)


ONLY_OFF: Final[Mapping[str, str]] = {
    "inject_others": "holding back other authors' memories is a protection: the repository and "
    "the user may each ask for it, and neither can lift it against the other",
}
"""Flags any source may turn off and none may turn back on, with the reason."""


def merge(
    sources: Iterable[Source], warn: Warn, *, repository: Iterable[Source] = ()
) -> EngineSettings:
    """Defaults overridden by each of the ``repository``'s settings tables (:func:`file_sources`),
    then each source in order (the user's own, :func:`user_sources`); an :data:`ONLY_OFF` flag
    stays off once any source turned it off, and a repository's table may lower an
    ``only_lower`` limit but not raise it above its default. Keys the engine does not know are
    left to other readers."""
    settings = EngineSettings()
    for name, values in repository:
        settings = apply(settings, name, values, warn, from_repository=True, raise_it=in_own_file)
    for name, values in sources:
        settings = apply(settings, name, values, warn)
    return settings


def in_own_file(name: str) -> str:
    """Where the user raises a limit of the engine a repository may not: their own file."""
    return f"set {name} in your own {user_config_path()}"


def embedder_setting(repo_root: Path | None, warn: Warn) -> str:
    """The ``embedder`` setting for a repository. Only what concerns that key, or the user's
    own file it must come from (one that cannot be read), is reported, once: the recall paths
    that ask for it leave the other keys to the commands that own them."""
    told: set[str] = set()
    own_file = str(user_config_path())

    def about_embedder(message: str) -> None:
        relevant = "embedder" in message or (own_file in message and "not read" in message)
        if relevant and message not in told:
            told.add(message)
            warn(message)

    return engine_settings(repo_root, about_embedder).embedder


def engine_settings(repo_root: Path | None, warn: Warn) -> EngineSettings:
    """The engine's settings for a repository (``repo_root`` None: no repository's files):
    the defaults, then the repository's files, then the user's own file."""
    repository = file_sources(repo_root, warn)
    return merge(user_sources(warn, repo_root), warn, repository=repository)
