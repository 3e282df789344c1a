"""Reading a store: one memory by id or prefix, lists by file, category and status."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from recall.errors import BadInput, MalformedMemory, NotFound
from recall.index import rows
from recall.memfiles import OversizedFile
from recall.model import AMBIGUOUS_NAMED, MIN_ID_PREFIX, WARNING_CATEGORIES, Memory
from recall.store.opening import IndexOpening, recovering

if TYPE_CHECKING:
    from collections.abc import Sequence

    from recall.store.results import Problem


class StoreReads(IndexOpening):
    """The read side of a store."""

    @recovering
    def get(self, ref: str) -> Memory:
        """Find a memory by id, or by a unique id prefix of at least 4 characters."""
        memory = self.find(ref)
        if memory is None:
            raise NotFound(f"no memory {ref!r} in the {self.scope} store; `tether list` shows ids")
        return memory

    @recovering
    def find(self, ref: str) -> Memory | None:
        """Like :meth:`get` but returns None when absent; ambiguous prefixes are bad input."""
        ref = ref.strip().lower()
        row = self.conn.execute("SELECT * FROM memories WHERE id = ?", (ref,)).fetchone()
        if row is not None:
            return rows.memory_from_row(row)
        if len(ref) < MIN_ID_PREFIX or not all(c in "0123456789abcdef" for c in ref):
            return None
        found = self.conn.execute(
            "SELECT * FROM memories WHERE id LIKE ? ORDER BY id LIMIT ?",
            (ref + "%", AMBIGUOUS_NAMED + 1),
        ).fetchall()
        if len(found) > 1:
            named = ", ".join(row["id"] for row in found[:AMBIGUOUS_NAMED])
            more = ", ..." if len(found) > AMBIGUOUS_NAMED else ""
            raise BadInput(
                f"id prefix {ref!r} matches several memories ({named}{more}); give more digits"
            )
        return rows.memory_from_row(found[0]) if found else None

    @recovering
    def ids(self) -> set[str]:
        """Every id this store holds: its memories', and the name of each memory file in its
        folder (one that cannot be loaded still holds the id it is named after)."""
        taken = {row[0] for row in self.conn.execute("SELECT id FROM memories")}
        taken.update(stat.name.removesuffix(".md") for stat in self.folder.scan())
        return taken

    @recovering
    def file_name_of(self, memory_id: str) -> str:
        """The file name holding a memory."""
        row = self.conn.execute("SELECT name FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            raise NotFound(f"no memory {memory_id!r} in the {self.scope} store")
        return row[0]

    def path_of(self, memory_id: str) -> Path:
        """The file path holding a memory."""
        return self.folder.path / self.file_name_of(memory_id)

    def extra_of(self, memory_id: str) -> dict[str, Any]:
        """The front-matter keys of a memory's file that Tether does not know
        (:attr:`Memory.extra`), read from the file itself: the index does not keep them.

        Raises :class:`MalformedMemory` when the file cannot be read or parsed now."""
        return self.extra_lines_of(memory_id)[0]

    def extra_lines_of(
        self, memory_id: str, *, derived: bool = False
    ) -> tuple[dict[str, Any], dict[str, tuple[int, str]], Path]:
        """:meth:`extra_of`, with the line (1-based number, text) each of those keys is written
        on and the file's path (for saying what YAML made of a value as written). With
        ``derived``, a key the file gives a value Tether makes itself (a ``content_hash``
        written by hand: :data:`recall.records.DERIVED_KEYS`) is among them too, so that an
        export can say it is there.

        Raises :class:`MalformedMemory` when the file cannot be read or parsed now."""
        text, path = self.text_of(memory_id)
        from recall import frontmatter  # YAML: only for what reads a file
        from recall.line_ends import lone_cr_as_lf
        from recall.records import DERIVED_KEYS, extra_fields

        parsed = frontmatter.parse(text, path)
        lines = lone_cr_as_lf(text.lstrip("\ufeff")).split("\n")  # as key_lines counts them
        extra = extra_fields(parsed.fields)
        if derived:
            extra.update({k: v for k, v in parsed.fields.items() if k in DERIVED_KEYS})
        at = parsed.key_lines
        written = {k: (at[k], lines[at[k] - 1]) for k in extra if k in at}
        return extra, written, path

    def text_of(self, memory_id: str) -> tuple[str, Path]:
        """The text of a memory's file as it is now, and its path; :class:`MalformedMemory`
        when it cannot be read."""
        name = self.file_name_of(memory_id)
        path = self.folder.path / name
        try:
            return self.folder.read_bytes(name).decode("utf-8"), path
        except (OSError, OversizedFile, UnicodeDecodeError) as error:
            raise MalformedMemory(path, 1, f"could not be read again ({error})") from None

    @recovering
    def list(
        self,
        *,
        file: str | None = None,
        category: str | None = None,
        status: str | None = "active",
        earlier: Sequence[str] = (),
    ) -> list[Memory]:
        """Memories filtered by file, category and status (``None`` or ``all``: any status);
        ``earlier``: other names of ``file`` (its names before renames) a memory may give it."""
        clauses: list[str] = []
        params: list[object] = []
        if status and status != "all":
            from recall.text_checks import check_status

            check_status(status)
            clauses.append("m.status = ?")
            params.append(status)
        if category:
            from recall.text_checks import check_category

            check_category(category)
            clauses.append("m.category = ?")
            params.append(category)
        if file:
            # the file itself, or any path under it as a folder: the paths from "file/" up to
            # "file0" ("0" follows "/"), a range the path index answers without a scan
            folder = file.rstrip("/")
            names = ",".join("?" * (1 + len(earlier)))
            clauses.append(
                "m.rowid IN (SELECT memory_rowid FROM memory_files "
                f"WHERE path IN ({names}) OR (path >= ? AND path < ?))"
            )
            params.extend([file, *earlier, folder + "/", folder + "0"])
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        query = f"SELECT * FROM memories m {where} ORDER BY m.created DESC, m.id"
        return [rows.memory_from_row(r) for r in self.conn.execute(query, params)]

    @recovering
    def guarding_or_warning(self, path: str, earlier: Sequence[str] = ()) -> list[Memory]:
        """The active memories naming ``path`` itself (or one of its ``earlier`` names) in
        their files that guard it or warn about it (a category of
        :data:`~recall.model.WARNING_CATEGORIES`), in :meth:`list`'s order. Only those are
        read: a hub file is named by thousands of memories, mostly context, and building each
        of them cost an edit hook more than everything else."""
        marks = ",".join("?" * len(WARNING_CATEGORIES))
        # "+": the path index finds the file's rows and each is read by its rowid; the other
        # columns only filter them
        query = (
            "SELECT * FROM memories m WHERE +m.status = 'active' "
            f"AND (+m.guard = 1 OR +m.category IN ({marks})) "
            "AND m.rowid IN (SELECT memory_rowid FROM memory_files "
            f"WHERE path IN ({','.join('?' * (1 + len(earlier)))})) "
            "ORDER BY m.created DESC, m.id"
        )
        params = [*WARNING_CATEGORIES, path, *earlier]
        return [rows.memory_from_row(r) for r in self.conn.execute(query, params)]

    @recovering
    def count(self) -> int:
        """How many memories the index holds (any status)."""
        return self.conn.execute("SELECT count(*) FROM memories").fetchone()[0]

    @recovering
    def problems(self) -> list[Problem]:
        """Memory files that could not be loaded, each with its path and line."""
        rows = self.conn.execute("SELECT name, line, message FROM problems ORDER BY name")
        found = rows.fetchall()
        if not found:  # most reads: the module that reports them is not even loaded
            return []
        from recall.store.results import Problem

        return [Problem(self.folder.path / r["name"], r["line"], r["message"]) for r in found]

    # -- writing ---------------------------------------------------------------------------
