"""The genome's judgement constants, each defined once with the reason for its value."""

from __future__ import annotations

from typing import Final

# Bulk commits (reformatting, licence headers, vendoring) would make every file a neighbour
# of every other; past this many files a commit says nothing about which files belong together.
MAX_COMMIT_FILES: Final = 30

# Larger files are generated, vendored or data; their imports are not worth reading 1 MiB for.
MAX_SCAN_BYTES: Final = 1 << 20

# A NUL byte in the first block is how git itself tells binary content from text.
BINARY_SNIFF_BYTES: Final = 8000

# Most bytes taken per read of the history stream: large enough that the per-read Python
# cost vanishes next to git's work when git runs ahead of the parser.
HISTORY_READ_BYTES: Final = 1 << 18

# A Go package or a Java wildcard import counts as importing every file of the package; a
# package wider than this is a generated or vendored tree and would swamp fan-in.
MAX_PACKAGE_FILES: Final = 200

# A symbol anchor whose file no longer defines its name is looked for elsewhere by name; a
# name defined in more files than this (``init``, ``main``) is too common to say where it went.
MAX_RELOCATION_CANDIDATES: Final = 8

# Files the working tree changed or added since the index read it, parsed to see whether an
# anchored name went into one of them: a move touches a few files, and this many of a usual
# size parse in about 0.2 s, which a show or a hover can wait; past them (a generated folder
# not ignored) the move is not looked for.
MAX_CHANGED_FILES_READ: Final = 64

# tree-sitter parses with Python's lock released, so a full symbol build splits its files
# between this many threads; more would only contend with git and the history read.
PARSE_THREADS: Final = 2

# Fewer new contents than this are parsed on the tree thread alone: a pool costs more than
# it saves for the few files of an incremental refresh.
PARALLEL_PARSE_MIN: Final = 64

# Co-change neighbour lists a long-lived genome keeps between refreshes: a language server
# asks the same few files again on every keystroke; past this many it starts afresh (each
# list is at most a few dozen names, so the bound is well under a megabyte).
NEIGHBOURS_KEPT: Final = 4096

# Renamed files git pairs by content in one comparison (its -l option) whatever diff.renameLimit
# says: git's own bound for merges, well above its default of 1000 for diffs, so the files of a
# large move keep their history; past it git's exhaustive pass (quadratic) is skipped.
RENAME_LIMIT: Final = 7000
