"""The index schema and its forward migrations.

The index is derived: every table here can be rebuilt from the memory files, except the
per-user behaviour tables (:data:`PER_USER_TABLES`), which record what happened rather than what
is known; a rebuild carries them over from an index made where it lies (:mod:`recall.index.keep`).
"""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 15

NEW_INDEX_ID: Final = "lower(hex(randomblob(4)))"
"""SQL for a fresh random identity of an index (8 hex digits), drawn when it is created: a
rebuilt index restarts its generation count, and the identity tells its states from the old
index's (see :func:`recall.index.rows.index_stamp`)."""

_USAGE_DAYS_DDL: Final = """
CREATE TABLE IF NOT EXISTS usage_days(
    day TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    surfaced INTEGER NOT NULL DEFAULT 0,
    acted INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(day, memory_id)
) WITHOUT ROWID;
"""
"""The usage counters again, per UTC day: what ``tether stats`` charts over time. ``usage`` keeps
the totals (every count, also those from before this table existed)."""

_ANCHORS_TABLE_DDL: Final = """
CREATE TABLE IF NOT EXISTS memory_anchors(
    memory_rowid INTEGER NOT NULL,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    leaf TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memory_anchors_leaf ON memory_anchors(leaf);
CREATE INDEX IF NOT EXISTS memory_anchors_rowid ON memory_anchors(memory_rowid);
"""
"""Each symbol anchor of a memory, by the last part of its name: how recall finds the memories
whose symbol moved into a touched file (the ``anchors`` column keeps them whole, as JSON)."""

GENOME_RENAMES_DDL: Final = """
CREATE TABLE IF NOT EXISTS genome_renames(
    seq INTEGER NOT NULL,
    old TEXT NOT NULL,
    new TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS genome_renames_old ON genome_renames(old, seq);
CREATE INDEX IF NOT EXISTS genome_renames_new ON genome_renames(new, seq);
"""
"""The genome's renames (commit number, name left, name taken), indexed by each name in commit
order: an edit hook follows a file's names one look-up at a time (:mod:`recall.file_names`).
The genome creates the table from this (:mod:`recall.genome.schema`); it is here so that a
migration can index a table built before the indexes were (the table is made empty where there
is no genome yet, and the genome's first refresh makes it afresh)."""

BASE_DDL: Final = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
INSERT OR IGNORE INTO meta(key, value) VALUES('index_id', {NEW_INDEX_ID});

CREATE TABLE IF NOT EXISTS memories(
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    category TEXT NOT NULL,
    summary TEXT NOT NULL,
    details TEXT NOT NULL,
    files TEXT NOT NULL,
    anchor TEXT,
    anchors TEXT,
    pinned INTEGER NOT NULL,
    guard INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    supersedes TEXT,
    superseded_by TEXT,
    created TEXT NOT NULL,
    author TEXT NOT NULL,
    source TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    file_sha TEXT NOT NULL,
    secret INTEGER NOT NULL DEFAULT 0,
    summary_key TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS memories_hash ON memories(content_hash);
CREATE INDEX IF NOT EXISTS memories_summary_key ON memories(summary_key);
CREATE INDEX IF NOT EXISTS memories_status ON memories(status);
CREATE INDEX IF NOT EXISTS memories_supersedes ON memories(supersedes);

CREATE TABLE IF NOT EXISTS memory_files(
    memory_rowid INTEGER NOT NULL,
    path TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memory_files_path ON memory_files(path);
CREATE INDEX IF NOT EXISTS memory_files_rowid ON memory_files(memory_rowid);

{_ANCHORS_TABLE_DDL}
CREATE VIRTUAL TABLE IF NOT EXISTS fts_words USING fts5(
    summary, details, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_trigram USING fts5(
    summary, details, tokenize = 'trigram'
);

CREATE TABLE IF NOT EXISTS problems(
    name TEXT PRIMARY KEY,
    line INTEGER NOT NULL,
    message TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS usage(
    memory_id TEXT PRIMARY KEY,
    surfaced INTEGER NOT NULL DEFAULT 0,
    acted INTEGER NOT NULL DEFAULT 0,
    first_surfaced TEXT,
    last_surfaced TEXT,
    last_acted TEXT,
    archived_by_disuse INTEGER NOT NULL DEFAULT 0,
    archived_at TEXT
);

CREATE TABLE IF NOT EXISTS vectors(
    memory_rowid INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    vec BLOB NOT NULL
);

CREATE VIRTUAL TABLE IF NOT EXISTS fts_words_vocab USING fts5vocab(fts_words, 'row');

CREATE TABLE IF NOT EXISTS sessions(
    id TEXT PRIMARY KEY,
    started TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0,
    origin TEXT NOT NULL DEFAULT 'cli'
);

CREATE TABLE IF NOT EXISTS lifecycle(key TEXT PRIMARY KEY, value TEXT NOT NULL);
{_USAGE_DAYS_DDL}"""

HINTS_DDL: Final = """
CREATE TABLE IF NOT EXISTS hint_sessions(
    session TEXT PRIMARY KEY,
    spent INTEGER NOT NULL DEFAULT 0,
    self_serve INTEGER NOT NULL DEFAULT 0,
    origin TEXT NOT NULL DEFAULT '',
    started TEXT NOT NULL,
    last_seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hint_marks(
    session TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    dismissed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(session, memory_id)
);
"""
"""The hint policy's state per session (:mod:`recall.policy.hints`), created on first use."""

TOUCHES_DDL: Final = """
CREATE TABLE IF NOT EXISTS hook_touches(
    session TEXT NOT NULL,
    path TEXT NOT NULL,
    turn INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY(session, path)
);
"""
"""The files a session's edit tool touched (:mod:`recall.hooks.touches`), created on first use."""

GUARD_LEDGER_DDL: Final = """
CREATE TABLE IF NOT EXISTS guard_allowed(
    session TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    path TEXT NOT NULL,
    PRIMARY KEY(session, memory_id, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS guard_asked(
    session TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    path TEXT NOT NULL,
    tool_use TEXT NOT NULL DEFAULT '',
    asked INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(session, path, tool_use, memory_id)
) WITHOUT ROWID
"""
"""The guards a person was asked about and let an edit past (:mod:`recall.hooks.guarded`),
created on first use."""

PER_USER_TABLES: Final = (
    "usage",
    "usage_days",
    "sessions",
    "lifecycle",
    "hint_sessions",
    "hint_marks",
    "hook_touches",
    "guard_allowed",
    "guard_asked",
)
"""Tables of behaviour, not knowledge: kept across a rebuild of the index. The last five are
created on first use by :mod:`recall.policy.hints` and :mod:`recall.hooks` (a question a guard
asked is pending until its edit runs, and a rebuild in between must not lose it)."""

FIRST_USE_DDL: Final[dict[str, str]] = {
    "hint_sessions": HINTS_DDL,
    "hint_marks": HINTS_DDL,
    "hook_touches": TOUCHES_DDL,
    "guard_allowed": GUARD_LEDGER_DDL,
    "guard_asked": GUARD_LEDGER_DDL,
}
"""The statements that create each per-user table a fresh index lacks: a rebuild creates them
from these, never from the definition an old file gives (:mod:`recall.index.keep`)."""

_LIFECYCLE_DDL: Final = """
ALTER TABLE usage ADD COLUMN archived_at TEXT;
CREATE TABLE IF NOT EXISTS lifecycle(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

_VECTORS_DDL: Final = """
CREATE TABLE IF NOT EXISTS vectors(
    memory_rowid INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    vec BLOB NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts_words_vocab USING fts5vocab(fts_words, 'row');
"""

FOLDER_STATE_KEYS: Final = ("folder_fingerprint", "folder_listing")
"""The ``meta`` keys that let a sync skip reading the memory files: the folder's fingerprint
(:mod:`recall.index.sync`) and its saved listing (:mod:`recall.index.listing`)."""


def reread_every_file() -> str:
    """SQL for a migration that needs every memory file read again: no file matches its row
    any more, and the folder's saved state goes, or a sync would trust it and read none."""
    return reread_files("1")


def reread_files(which: str) -> str:
    """SQL for a migration that needs the memory files of the rows ``which`` (an SQL condition
    on ``memories``) read again, with every file that had a problem: no such file matches its
    row any more, and the folder's saved state goes, or a sync would trust it and read none."""
    keys = ", ".join(f"'{key}'" for key in FOLDER_STATE_KEYS)
    return (
        f"UPDATE memories SET mtime_ns = -1 WHERE {which};\n"
        "UPDATE problems SET mtime_ns = -1;\n"
        f"DELETE FROM meta WHERE key IN ({keys});\n"
    )


# Forward migrations: MIGRATIONS[n] upgrades a version-n index to version n + 1. One that needs
# the memory files read again uses reread_every_file().
MIGRATIONS: Final[dict[int, str]] = {
    # v2: semantic vectors, and term counts for dropping common query terms
    1: _VECTORS_DDL,
    # v3: find the memories that replace a recalled one without scanning every memory
    2: "CREATE INDEX IF NOT EXISTS memories_supersedes ON memories(supersedes)",
    # v4: when disuse archived a memory, and the lifecycle's own state (the last cleanup pass)
    3: _LIFECYCLE_DDL,
    # v5: the usage counters per day, for charts of surfaced against acted over time
    4: _USAGE_DAYS_DDL,
    # v6: symbol anchors (path::name) and the table recall follows moved symbols through
    # and guarded memories (edits under them ask first)
    5: (
        "ALTER TABLE memories ADD COLUMN anchors TEXT;\n"
        "ALTER TABLE memories ADD COLUMN guard INTEGER NOT NULL DEFAULT 0;\n"
        # every file is read once more, so a guard or anchors written by hand before are kept
        + reread_every_file()
        + _ANCHORS_TABLE_DDL
    ),
    # v7: the v6 step as first shipped left the folder's fingerprint in place, so a sync
    # trusted it and never read the files again: read them now, for guards and anchors
    6: reread_every_file(),
    # v8: the genome's renames indexed by each name, for the look-ups of the edit hooks
    7: GENOME_RENAMES_DDL,
    # v9: whether a memory's text holds a credential (written by hand or past the scan), so
    # that what agents are given of it is masked; every file is read once more to say so
    8: "ALTER TABLE memories ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;\n" + reread_every_file(),
    # v10: a file's ``created`` is kept in UTC, so that its text orders as its time does, and
    # one that names no time is a problem of its file: every file is read once more for both
    9: reread_every_file(),
    # v11: a memory is tied to the files of its anchors that its ``files`` leaves out (a file
    # written by hand): every file is read once more to tie them
    10: reread_every_file(),
    # v12: a memory's summary as two summaries are compared (case, spacing and Unicode forms
    # aside), indexed, so a write finds the memory holding its summary without reading all of
    # them: every file is read once more to fill it
    11: (
        "ALTER TABLE memories ADD COLUMN summary_key TEXT NOT NULL DEFAULT '';\n"
        "CREATE INDEX IF NOT EXISTS memories_summary_key ON memories(summary_key);\n"
        + reread_every_file()
    ),
    # v13: a lone CR ends a memory's summary line as a line feed does, where it was read as a
    # character of the summary (the rest of its body run into it): the files whose summary or
    # details as read hold a CR are read once more, and only those (no other reads otherwise)
    12: reread_files("instr(summary, char(13)) > 0 OR instr(details, char(13)) > 0"),
    # v14: a file whose lines end in a lone CR throughout (old Mac line ends) has its front
    # matter read, where it was refused as having none: the files that had a problem are read
    # once more (no memory's file is)
    13: reread_files("0"),
    # v15: a memory whose author, files or anchors hold a vendor's token (written by hand)
    # holds a credential too, so that what agents are given of them is masked: every file is
    # read once more to say so
    14: reread_every_file(),
}
