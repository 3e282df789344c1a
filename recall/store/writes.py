"""Writing one memory: validate, dedupe, write the file atomically and index it; rewrite
front matter with the old file kept until the index has the new one."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING

from recall.clock import now_iso
from recall.display import as_given
from recall.errors import BadInput, NotFound, StoreUnavailable
from recall.index import db, rows
from recall.index.sync import mark_racy, store_fingerprint
from recall.index.sync_file import indexed_created, memory_from_text
from recall.locations import ensure_created
from recall.memfiles import FileStat, file_sha
from recall.model import SOURCES, Memory, is_valid_id
from recall.store.opening import recovering
from recall.store.vector_fill import VectorFilling
from recall.swap_unchanged import FileChanged, swap_if_unchanged

if TYPE_CHECKING:
    from recall.store.results import WriteResult

# Hidden, and cleaned up like a killed writer's temp files (recall.memfiles).
_KEPT_PREFIX = ".tmp-kept-"

REWRITE_TRIES = 5
"""Times a memory file is read and rewritten when it changes under a rewrite: an edit saved in
the few milliseconds of one is rare, so five in a row means something keeps writing the file
(a sync tool, a script), and waiting on it longer would only hang the command."""


class _Rewrite:
    """What a rewrite inside :meth:`StoreWrites._rewriting` put in place, once it did."""

    written: bytes | None = None


class StoreWrites(VectorFilling):
    """The write side of a store, one memory at a time."""

    def new_id(self) -> str:
        """An id no memory of this store has and no file of its folder is named after."""
        import secrets  # writes only: a read (every agent hook) never needs it

        while True:
            candidate = secrets.token_hex(4)
            taken = self.conn.execute("SELECT 1 FROM memories WHERE id = ?", (candidate,))
            if taken.fetchone() is None and not (self.folder.path / f"{candidate}.md").exists():
                return candidate

    def duplicate(self, content_hash: str, other_than: Collection[str] = ()) -> sqlite3.Row | None:
        """The memory of the index (but those of ``other_than``) holding the knowledge hashed
        as ``content_hash``, an active one first (its id, status, files, anchors, pinned, guard),
        or None: a write of it would write nothing (:meth:`remember`)."""
        skip = list(other_than)
        return self.conn.execute(
            "SELECT id, status, files, anchors, pinned, guard FROM memories WHERE content_hash = ? "
            f"AND status != 'deleted' AND id NOT IN ({', '.join('?' * len(skip))}) "
            "ORDER BY status = 'active' DESC, created LIMIT 1",
            (content_hash, *skip),
        ).fetchone()

    def _index_written(self, memory: Memory, stat: FileStat, text: str) -> None:
        """Index a file this process just wrote, adjusting the folder fingerprint to match."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            rows.delete_by_name(self.conn, stat.name)
            rows.insert_many(self.conn, [(memory, stat.name, stat, file_sha(text.encode()))])
            # A file just written may be edited again within its mtime tick: re-read it once.
            mark_racy(self.conn, [stat])
            store_fingerprint(self.conn, None)
            self.conn.execute("COMMIT")
        except BaseException:
            db.rollback(self.conn)
            raise

    def _unwrite(self, name: str) -> None:
        """Remove a new file whose indexing failed, so a failed write leaves nothing behind
        (best effort: a sync reconciles the index with whatever is left)."""
        with contextlib.suppress(OSError):
            os.unlink(self.folder.file(name))

    @contextlib.contextmanager
    def _rewriting(self, name: str) -> Iterator[_Rewrite]:
        """Rewrite a memory file inside the block, or, if the block fails once it has set
        :attr:`_Rewrite.written`, put the old file back as it was (same bytes, same mtime, so
        the index row still matches it), unless the file changed again since the rewrite.

        The old file is kept through a hard link, which takes no room: on a full disk,
        where the failure most likely came from, writing the old text back could fail too.
        Where hard links are not supported the file is left as rewritten, and the next
        sync indexes it.
        """
        import secrets  # writes only: a read (every agent hook) never needs it

        target = self.folder.file(name)
        kept = self.folder.path / f"{_KEPT_PREFIX}{secrets.token_hex(6)}-{name}"
        try:
            os.link(target, kept)
        except OSError:
            kept = None
        rewrite = _Rewrite()
        try:
            yield rewrite
        except BaseException:
            if kept is not None and rewrite.written is not None:
                # what another process wrote since the rewrite stays (the next sync reads it)
                with contextlib.suppress(OSError, FileChanged):
                    swap_if_unchanged(kept, target, rewrite.written, self.folder.max_bytes)
            raise
        finally:
            if kept is not None:
                with contextlib.suppress(OSError):
                    os.unlink(kept)

    def prepare_memory(
        self,
        *,
        summary: str,
        category: str,
        files: list[str],
        details: str | None = None,
        pinned: bool = False,
        anchor: str | None = None,
        author: str = "",
        source: str = "user",
        created: str | None = None,
        supersedes: str | None = None,
        allow_secret: bool = False,
        symbols: Iterable[str] = (),
        as_stored: bool = False,
        secret_override: str | None = None,
    ) -> Memory:
        """Validate user input into a memory with no id yet (paths must be normalized already).

        Text shaped like a credential is refused unless ``allow_secret`` says it is wanted, and
        so is a vendor token in a file path, the author, the anchor or one of ``symbols`` (the
        symbol anchors the caller will give the memory, ``path::name``); the refusal ends with
        ``secret_override``, how the caller writes it anyway (default: the CLI's flag).
        ``as_stored``: a memory given back as its store held it, whose control characters in
        the summary and details the caller has said (:mod:`recall.stored_rules`), so they are
        kept.
        """
        if anchor is not None and (not anchor.strip() or "\n" in anchor or "\r" in anchor):
            raise BadInput("--anchor must be a symbol name or a line range on one line")
        if source not in SOURCES:
            raise BadInput(f"unknown source {source!r}; use one of {', '.join(SOURCES)}")
        for label, value in (("--author", author), ("--anchor", anchor or "")):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise BadInput(f"{label} {as_given(value)} is not valid UTF-8 text") from None
        if not allow_secret:
            from recall import secrets_scan  # its patterns are compiled for writes only
            from recall.written_secrets import refuse_credentials

            refuse_credentials(
                summary=summary,
                details=details,
                anchor=anchor,
                files=files,
                author=author,
                symbols=symbols,
                override=secret_override or secrets_scan.OVERRIDE_ADVICE,
            )
        from recall.text_checks import check_category, check_details, check_summary

        draft = Memory(
            id="",
            category=check_category(category),
            summary=check_summary(summary, as_stored=as_stored),
            details=check_details(details, as_stored=as_stored),
            files=tuple(dict.fromkeys(files)),
            anchor=anchor,
            pinned=pinned,
            supersedes=supersedes,
            created=created or now_iso(),
            author=author,
            source=source,
        )
        # the scan above found none in the summary and details kept: none again when indexed
        return draft if allow_secret else draft.scanned_clean()

    def create_on_disk(self) -> None:
        """Create the store's folders and index now, as its first write would."""
        self._ensure_on_disk()

    def _ensure_on_disk(self) -> None:
        """Create the store's folders, and trade an in-memory index for the real one."""
        try:  # a folder whose name a file holds is refused there, saying so
            made = ensure_created(self.location)
        except OSError as error:
            raise StoreUnavailable(
                f"could not create the {self.scope} store {self.location.base} "
                f"({error.strerror or error}); check the permissions of its parent folder"
            ) from None
        if made is not None:
            self.set_up = made
        if self._in_memory:
            self.close()

    @recovering
    def remember(
        self, draft: Memory, *, memory_id: str | None = None, vectors: bool = True
    ) -> WriteResult:
        """Write a new memory (``draft`` from :meth:`prepare_memory`); dedupe by content hash.

        Its semantic vector is made too, unless ``vectors`` is False (a caller with more to
        write first, which makes them after: :meth:`fill_vectors`)."""
        # writes only: a read (every agent hook) never needs it
        from recall.anchors.symbols import anchors_from_column
        from recall.store.results import WriteResult, files_missing, marks_missing

        self._ensure_on_disk()
        with self._writable():
            # Writers index what they write under this lock, so the index is current for
            # dedupe; files added by hand since this process looked are picked up first.
            self._refresh_if_folder_changed()
            dup = self.duplicate(draft.content_hash)
            if dup is not None:
                return WriteResult(
                    dup["id"],
                    self.scope,
                    self.path_of(dup["id"]),
                    dup["id"],
                    dup["status"],
                    files_missing(draft.files, json.loads(dup["files"])),
                    files_missing(
                        tuple(a.text for a in draft.anchors),
                        [a.text for a in anchors_from_column(dup["anchors"])],
                    ),
                    marks_missing(
                        draft.pinned, draft.guard, bool(dup["pinned"]), bool(dup["guard"])
                    ),
                )
            memory = draft.with_changes(id=self._pick_id(memory_id))
            from recall.record_size import check_fits
            from recall.records import render_memory

            text = render_memory(memory)
            check_fits(memory, text, self.folder.max_bytes)
            stat = self._write_new(memory.id, text)
            try:
                self._index_written(memory, stat, text)
            except BaseException:
                self._unwrite(stat.name)
                raise
            self._seen_dir_mtime = self._dir_mtime()
        if vectors:
            self.fill_vectors()
        return WriteResult(memory.id, self.scope, self.folder.path / stat.name)

    def _pick_id(self, wanted: str | None) -> str:
        if wanted and is_valid_id(wanted):
            row = self.conn.execute("SELECT 1 FROM memories WHERE id = ?", (wanted,)).fetchone()
            if row is None and not (self.folder.path / f"{wanted}.md").exists():
                return wanted
        return self.new_id()

    def _write_new(self, memory_id: str, text: str, *, durable: bool = True) -> FileStat:
        try:
            return self.folder.write(f"{memory_id}.md", text, exclusive=True, durable=durable)
        except FileExistsError:
            raise StoreUnavailable(
                f"{self.folder.path / (memory_id + '.md')} appeared while writing; retry"
            ) from None

    @contextlib.contextmanager
    def changing(self, ref: str) -> Iterator[Memory]:
        """Hold the writers' lock for a change to the memory ``ref`` (an id or a prefix) and
        give it as it is now, read under that lock: whatever another process wrote to it
        since this one looked (a supersede, an archive, an edit by hand) is what a change is
        checked against, so two writers never both act on the state one of them ended."""
        with self._writable():
            self._refresh_if_folder_changed()
            memory = self.get(ref)
            if self._file_moved_on(memory.id):
                self.refresh()
                memory = self.get(ref)
            yield memory

    def update_unchanged(self, seen: Memory, changes: dict[str, object]) -> Memory:
        """:meth:`update_fields` for ``changes`` worked out from ``seen``, refused
        (:class:`StoreUnavailable`, nothing written) when the memory is no longer as ``seen``
        under the writers' lock: another process wrote it since, and writing what was worked
        out from the old state would undo that write."""
        with self.changing(seen.id) as now:
            if now != seen:
                raise StoreUnavailable(
                    f"memory {seen.id} was changed by another process while this command ran "
                    f"({self.path_of(seen.id)}); nothing written: run the command again"
                )
            return self.update_fields(seen.id, changes)

    def _file_moved_on(self, memory_id: str) -> bool:
        """Whether the file of ``memory_id`` is no longer as the index last read it (its time
        or size changed, or it is gone): another process or a hand edit changed it since."""
        row = self.conn.execute(
            "SELECT name, mtime_ns, size FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
        if row is None:
            return True
        try:
            found = os.lstat(self.folder.file(row["name"]))
        except OSError:
            return True
        return (found.st_mtime_ns, found.st_size) != (row["mtime_ns"], row["size"])

    @recovering
    def update_fields(self, memory_id: str, changes: dict[str, object]) -> Memory:
        """Rewrite some front-matter keys of a memory file (body untouched) and re-index it.

        The file is replaced only while it still holds the text the rewrite was made from
        (:mod:`recall.swap_unchanged`): an edit saved meanwhile (by hand, by another tool) is
        read and the keys rewritten in it again, up to :data:`REWRITE_TRIES` times. An edit of
        the front matter itself, or a file that keeps changing, is refused
        (:class:`StoreUnavailable` naming the file, nothing written)."""
        from recall import frontmatter
        from recall.records import KNOWN_KEYS

        with self._writable():
            name = self.file_name_of(memory_id)
            path = self.folder.path / name
            read = self._read_to_rewrite(name)
            first: list[str] | None = None
            for _ in range(REWRITE_TRIES):
                text = read.decode("utf-8")
                fields = frontmatter.parse(text, path).fields
                front = frontmatter.front_matter_lines(text, path)
                if first is not None and front != first:  # a body edit alone is kept as it is
                    raise StoreUnavailable(
                        f"memory {memory_id} was changed ({path}) while this command rewrote "
                        "it; nothing written: run the command again"
                    )
                first = front
                before = indexed_created(self.conn, name)
                wanted = changes
                if before and "created" not in fields:
                    # the date lived in the index alone (a file written by hand without one):
                    # the rewrite moves the file's time it came from, so the file keeps it now
                    wanted = {"created": before, **changes}
                new_text = frontmatter.update(text, path, wanted, key_order=KNOWN_KEYS)
                with self._rewriting(name) as rewrite:
                    try:
                        stat = self.folder.write(name, new_text, exclusive=False, replacing=read)
                    except FileChanged:
                        read = self._read_to_rewrite(name)
                        continue
                    rewrite.written = new_text.encode("utf-8")
                    memory = memory_from_text(new_text, path, stat, self.normalize_stored, before)
                    self._index_written(memory, stat, new_text)
                return memory
        raise StoreUnavailable(
            f"{path} kept changing while tether rewrote it ({REWRITE_TRIES} tries); nothing "
            "written: run the command again once whatever writes it has finished"
        )

    def _read_to_rewrite(self, name: str) -> bytes:
        """The bytes of the memory file ``name``, to rewrite (:class:`NotFound` when gone)."""
        try:
            return self.folder.read_bytes(name)
        except FileNotFoundError:
            raise NotFound(f"{self.folder.path / name} disappeared; run `tether doctor`") from None
