"""Import fan-in for small trees in each language, through a real refresh."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from recall.genome import Genome
from recall.genome.imports.python import extract as python_extract
from recall.genome.imports.rust import expand_use
from recall.genome.imports.tsconfig import parse_jsonc
from recall.genome.limits import MAX_SCAN_BYTES

from .gitrepo import GitRepo

PYTHON = {
    "pkg/__init__.py": "from .core import run\n",
    "pkg/core.py": "import os\nfrom . import util\n\ndef run():\n    pass\n",
    "pkg/util.py": "def helper():\n    pass\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": "from ..util import helper\nfrom .... import nothing\n",
    "app.py": '"""Docs.\n\nimport fake.module\n"""\nimport pkg.core\nfrom pkg.sub import (\n'
    "    deep,  # the deep one\n)\nimport json\n",
    "src/mylib/__init__.py": "",
    "src/mylib/thing.py": "",
    "tools/run.py": "from mylib import thing\n",
    "tests/helper_mod.py": "",
    "tests/test_x.py": "import helper_mod\n",
}
TYPESCRIPT = {
    "web/tsconfig.json": '{\n  // comment\n  "compilerOptions": {\n    "baseUrl": ".",\n'
    '    "paths": {"@lib/*": ["src/lib/*"],},\n  },\n}\n',
    "web/src/lib/index.ts": "export * from './math';\n",
    "web/src/lib/math.ts": "export const add = (a: number, b: number) => a + b;\n",
    "web/src/app.tsx": "import { add } from './lib';\nimport x from '@lib/math';\n"
    "import React from 'react';\nconst u = require('./util.js');\n",
    "web/src/util.ts": "export {};\n",
    "web/src/widgets/button.ts": "import {\n  add,\n} from 'src/lib/math';\n",
}
GO = {
    "go/go.mod": "module example.com/svc\n\ngo 1.21\n",
    "go/main.go": 'package main\n\nimport (\n\t"fmt"\n\t"example.com/svc/store"\n'
    '\tst "example.com/svc/store/sub" // sub\n)\n',
    "go/store/store.go": "package store\n",
    "go/store/cache.go": 'package store\n\nimport "example.com/svc/store/sub"\n',
    "go/store/store_test.go": "package store\n",
    "go/store/sub/sub.go": "package sub\n",
}
RUST = {
    "rs/Cargo.toml": '[package]\nname = "my-crate"\nversion = "0.1.0"\n',
    "rs/src/lib.rs": "pub mod net;\nmod util; // helpers\nuse crate::net::tcp::Listener;\n",
    "rs/src/net/mod.rs": "pub mod tcp;\nuse super::util::helper;\n",
    "rs/src/net/tcp.rs": "use crate::util::{helper, Other as O};\npub struct Listener;\n",
    "rs/src/util.rs": "pub fn helper() {}\n",
    "rs/tests/it.rs": "use my_crate::net::tcp;\n",
}
C = {
    "c/include/proj/api.h": "int api(void);\n",
    "c/src/impl.h": "#pragma once\n",
    "c/src/impl.c": '#include "impl.h"\n#include <proj/api.h>\n#include <stdio.h>\n',
    "c/src/other.c": '#include "proj/api.h"\n#  include "../src/impl.h"\n',
    "c/tools/t.c": '#include "src/impl.h"\n',
}
JVM = {
    "jv/src/main/java/com/acme/Model.java": "package com.acme;\npublic class Model {}\n",
    "jv/src/main/java/com/acme/util/Strings.java": "package com.acme.util;\nclass Strings {}\n",
    "jv/src/main/java/com/acme/App.java": "package com.acme;\n\nimport com.acme.util.Strings;\n"
    "import com.acme.util.*;\nimport static com.acme.Model.build;\nimport java.util.List;\n",
    "jv/src/main/kotlin/Ext.kt": "package com.acme.ext\n\nimport com.acme.Model\n"
    "import com.acme.util.Strings as S\n",
}

EXPECTED = {
    "pkg/core.py": 2,
    "pkg/util.py": 2,
    "pkg/sub/deep.py": 1,
    "src/mylib/thing.py": 1,
    "tests/helper_mod.py": 1,
    "web/src/lib/index.ts": 1,
    "web/src/lib/math.ts": 3,
    "web/src/util.ts": 1,
    "go/store/store.go": 1,
    "go/store/cache.go": 1,
    "go/store/sub/sub.go": 2,
    "rs/src/net/mod.rs": 1,
    "rs/src/net/tcp.rs": 3,
    "rs/src/util.rs": 3,
    "c/src/impl.h": 3,
    "c/include/proj/api.h": 2,
    "jv/src/main/java/com/acme/Model.java": 2,
    "jv/src/main/java/com/acme/util/Strings.java": 2,
}


@pytest.fixture
def tree(make_repo: Callable[[str], GitRepo]) -> GitRepo:
    repo = make_repo("repo")
    for files in (PYTHON, TYPESCRIPT, GO, RUST, C, JVM):
        for path, text in files.items():
            repo.write(path, text)
    repo.commit("all languages")
    return repo


def test_fan_in_per_language(tree: GitRepo, open_genome: Callable[..., Genome]) -> None:
    genome = open_genome(tree.root)
    summary = genome.refresh()
    every = {path for files in (PYTHON, TYPESCRIPT, GO, RUST, C, JVM) for path in files}
    found = {path: genome.fan_in(path) for path in every if genome.fan_in(path)}
    assert found == EXPECTED
    assert summary.import_edges == sum(EXPECTED.values())
    assert summary.files_scanned == len(every) - 3  # go.mod, Cargo.toml, tsconfig.json


def test_rescan_reads_only_changed_files(tree: GitRepo, open_genome: Callable[..., Genome]) -> None:
    genome = open_genome(tree.root)
    first = genome.refresh()
    again = genome.refresh()
    assert again.files_scanned == 0
    assert again.files_cached == first.files_scanned
    tree.write("tools/run.py", "import pkg.util\n")
    tree.write("new_script.py", "from pkg import core\n")
    changed = genome.refresh()
    assert changed.files_scanned == 2
    assert genome.fan_in("src/mylib/thing.py") == 0
    assert genome.fan_in("pkg/util.py") == 3
    assert genome.fan_in("pkg/core.py") == 3
    (tree.root / "new_script.py").unlink()
    assert genome.refresh().files_scanned == 0
    assert genome.fan_in("pkg/core.py") == 2
    full = genome.refresh(full=True)
    assert full.files_scanned == first.files_scanned
    assert full.files_cached == 0


def test_binary_huge_and_non_utf8_files_are_skipped(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.write("target.py", "")
    repo.write("blob.py", b"import target\n\0\1\2")
    repo.write("big.js", "import './target';\n" + "x" * MAX_SCAN_BYTES)
    repo.write("latin.c", '#include "target.py"\n/* caf\xe9 */\n'.encode("latin-1"))
    repo.write("fine.py", "import target\n")
    repo.commit("files")
    summary = open_genome(repo.root).refresh()
    assert summary.files_skipped == {"binary": 1, "huge": 1, "non_utf8": 1, "unreadable": 0}
    assert summary.files_scanned == 2
    assert open_genome(repo.root, db="again").refresh().files_skipped["huge"] == 1


def test_python_extraction_details() -> None:
    text = (
        "import a.b as c, d\n"
        "from x.y import (p,\n    q as r)\n"
        "from . import *\n"
        "from ..up import thing \\\n    , other\n"
        "if True: import indented\n"
        "print('import nothing')\n"
        "'''\nimport quoted\n'''\n"
    )
    assert python_extract(text) == [
        "i:a.b",
        "i:d",
        "f:x.y:p,q",
        "f:.:*",
        "f:..up:thing,other",
    ]


def test_rust_use_trees() -> None:
    assert expand_use("crate::a::{b, c::{d, self}, e as f, g::*}") == [
        "crate::a::b",
        "crate::a::c::d",
        "crate::a::c",
        "crate::a::e",
        "crate::a::g",
    ]
    assert expand_use("::std::io") == ["std::io"]


def test_tsconfig_with_comments_and_trailing_commas() -> None:
    text = '{"a": "http://x", /* c */ "b": [1, 2,], // tail\n "s": "/* kept */",}'
    assert parse_jsonc(text) == {"a": "http://x", "b": [1, 2], "s": "/* kept */"}


def test_tsconfig_extends_and_exact_paths(
    make_repo: Callable[[str], GitRepo], open_genome: Callable[..., Genome]
) -> None:
    repo = make_repo("repo")
    repo.write("tsconfig.base.json", '{"compilerOptions": {"baseUrl": "lib"}}')
    repo.write(
        "app/tsconfig.json",
        '{"extends": "../tsconfig.base", "compilerOptions": {"paths": {"config": ["../conf.ts"]}}}',
    )
    repo.write("lib/tools.ts", "")
    repo.write("conf.ts", "")
    repo.write("app/main.ts", "import t from 'tools';\nimport c from 'config';\n")
    repo.commit("ts")
    genome = open_genome(repo.root)
    genome.refresh()
    assert genome.fan_in("lib/tools.ts") == 1
    assert genome.fan_in("conf.ts") == 1


def test_fan_in_kept_or_recomputed(tree: GitRepo, open_genome: Callable[..., Genome]) -> None:
    genome = open_genome(tree.root)
    first = genome.refresh()
    tree.write("pkg/util.py", "def helper():\n    return 2\n")
    kept = genome.refresh()
    assert kept.files_scanned == 1
    assert kept.import_edges == first.import_edges
    assert genome.fan_in("pkg/util.py") == 2
    tree.write("go/go.mod", "module example.com/other\n")
    moved = genome.refresh()
    assert moved.import_edges == first.import_edges - 4
    assert genome.fan_in("go/store/sub/sub.go") == 0
