"""The moved-symbol look-ups asked in one statement answer as their one-at-a-time forms do."""

from __future__ import annotations

from recall.genome.symbols.lookup import find_in, found_in_place, leaves_in, leaves_of

from .world import World

PY = (
    "class Store:\n    def save(self):\n        return 1\n\n"
    "class Cache:\n    def save(self):\n        return 2\n\n"
    "def load():\n    return 3\n"
)
PY_ONE = "class Store:\n    def save(self):\n        return 1\n\ndef main():\n    return 0\n"
C = "int main(int arg)\n{\n    return 0;\n}\n\nint load(int arg)\n{\n    return 1;\n}\n"


def test_the_batched_look_ups_answer_as_find_in_and_leaves_in(world: World) -> None:
    files = {"src/two.py": PY, "src/one.py": PY_ONE, "src/a.c": C, "README": "words\n"}
    for path, text in files.items():
        world.repo.write(path, text)
    world.repo.commit("start")
    conn = world.genome().conn
    paths = [*files, "src/missing.c"]
    assert leaves_of(conn, paths) == {
        p: set(leaves_in(conn, p)) for p in paths if leaves_in(conn, p)
    }
    names = ["save", "Store.save", "Cache.save", "load", "main", "Nope.save", "missing"]
    wanted = {(path, name) for path in paths for name in names}
    expected = {pair for pair in wanted if find_in(conn, *pair) is not None}
    assert ("src/one.py", "save") in expected  # the tail finds the one Store.save
    assert ("src/two.py", "save") not in expected  # two tails in one file: neither
    assert found_in_place(conn, wanted) == expected
    assert found_in_place(conn, set()) == set()
