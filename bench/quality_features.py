"""Candidate features tried offline on the dumped recall candidates (``bench.quality_offline``).

Each feature gives one value per candidate of a task, in the dump's order; the offline
reorder adds ``strength * value`` to the engine's score. They read what a dump does not hold
from the history's own files: the memories' texts and files, the task's prompt and files.
Word statistics are the whole history's (a task's own statistics would be those before it;
the difference is small next to the gains looked for, and it is one pass instead of one per
task). Files are matched by name: renames are not followed here.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from recall.index.fts import WORD
from recall.ranking.weights import FUNCTION_WORDS, INTRODUCING_WORDS, TEXT_MAX

if TYPE_CHECKING:
    from bench.quality_offline import History, Task

_PATH_PARTS = re.compile(r"[^a-z0-9]+")

BM25_K1 = 1.2
BM25_B = 0.75
MEAN_TOKENS = 40.0
"""Length a memory's words are normalised by (about a commit message's)."""


def words(text: str) -> list[str]:
    """The index's word tokens of ``text`` (lower case, ``_`` splits), two characters or more."""
    return [w for w in WORD.findall(text.lower()) if len(w) >= 2]


def content_words(prompt: str) -> list[str]:
    """The prompt's words that are not function words, once each, in order."""
    return [w for w in dict.fromkeys(words(prompt)) if w not in FUNCTION_WORDS]


def saturate(value: Any, half: float) -> Any:
    """``value / (value + half)``: 0 at 0, one half at ``half``, below 1."""
    return value / (value + half)


def _file_memories(history: History, task: Task) -> set[int]:
    """History indexes of the memories naming a touched file, older than the task."""
    up_to = task.task["task_idx"]
    return {i for f in task.task["touched"] for i in history.file_mems.get(f, ()) if i < up_to}


def _bm25(tf: int, length: int) -> float:
    return tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / MEAN_TOKENS))


def file_idf_text(history: History, task: Task) -> Any:
    """bm25 of the prompt's words with each word's idf taken among the touched files'
    memories only (a word half of them hold tells nothing among them), saturated at 15."""
    import numpy as np

    local = _file_memories(history, task)
    held = Counter(w for i in local for w in set(history.words(i)))
    query = content_words(task.task["prompt"])
    out = np.zeros(len(task.idx))
    for k, i in enumerate(task.idx):
        text = history.words(i)
        counts = Counter(text)
        for w in query:
            if counts[w]:
                idf = math.log((len(local) - held[w] + 0.5) / (held[w] + 0.5)) if local else 0.0
                out[k] += max(0.0, idf) * _bm25(counts[w], len(text))
    return saturate(out, 15.0)


def file_idf_text_instead(history: History, task: Task) -> Any:
    """For a memory of a touched file, :func:`file_idf_text` at the engine's text scale
    (``TEXT_MAX``) minus the engine's word score: at strength 1 the file-local text score
    replaces the engine's among the touched files' memories."""
    import numpy as np

    local = TEXT_MAX * file_idf_text(history, task)
    engine = np.array([s.get("words", 0.0) for s in task.signals])
    on_file = np.array([1.0 if "file" in s else 0.0 for s in task.signals])
    return on_file * (local - engine)


def word_pairs(history: History, task: Task) -> Any:
    """Two words next to each other in the prompt found next to each other in the memory,
    each pair weighted by its words' idf, saturated at 15."""
    import numpy as np

    prompt = list(dict.fromkeys(words(task.task["prompt"])))
    pairs = {
        (a, b)
        for a, b in itertools.pairwise(prompt)
        if a not in FUNCTION_WORDS and b not in FUNCTION_WORDS
    }
    out = np.zeros(len(task.idx))
    for k, i in enumerate(task.idx):
        text = history.words(i)
        found = {pair for pair in itertools.pairwise(text) if pair in pairs}
        out[k] = sum(history.idf(a) + history.idf(b) for a, b in found)
    return saturate(out, 15.0)


def feedback_words(history: History, task: Task) -> Any:
    """Pseudo-relevance: the words (idf-weighted) of the three candidates the word channel
    matched most strongly; each other candidate scores the weight of those words it holds
    over the root of its distinct words, saturated at 60."""
    import numpy as np

    strength = np.array([s.get("words", 0.0) for s in task.signals])
    top = [int(k) for k in np.argsort(-strength, kind="stable")[:3] if strength[k] > 0]
    centre: Counter[str] = Counter()
    for k in top:
        for w in set(history.words(task.idx[k])) - FUNCTION_WORDS:
            centre[w] += history.idf(w)
    out = np.zeros(len(task.idx))
    for k, i in enumerate(task.idx):
        held = set(history.words(i)) - FUNCTION_WORDS
        out[k] = sum(centre[w] for w in held) / (math.sqrt(len(held)) or 1.0)
    return saturate(out, 60.0)


def file_word_share(history: History, task: Task) -> Any:
    """How much the prompt's words were written about each touched file before: the
    idf-weighted share of the file's earlier memories holding each word (prior of five
    memories), summed over the words, saturated at 1; a candidate gets its best file's."""
    import numpy as np

    up_to = task.task["task_idx"]
    query = content_words(task.task["prompt"])
    share: dict[str, float] = {}
    for path in task.task["touched"]:
        earlier = [set(history.words(i)) for i in history.file_mems.get(path, ()) if i < up_to]
        if earlier:
            value = sum(
                history.idf(w) * sum(w in held for held in earlier) / (len(earlier) + 5)
                for w in query
            )
            share[path] = value / (value + 1.0)
    return np.array(
        [
            max((share.get(f, 0.0) for f in history.commits[i]["files"]), default=0.0)
            for i in task.idx
        ]
    )


def details_length(history: History, task: Task) -> Any:
    """log(1 + the memory's words): a longer note explains more."""
    import numpy as np

    return np.log1p([len(history.words(i)) for i in task.idx])


def path_words(history: History, task: Task) -> Any:
    """How many of the prompt's words (three letters or more) are parts of the paths the
    memory names, at most two."""
    import numpy as np

    query = {w for w in content_words(task.task["prompt"]) if len(w) >= 3}
    out = []
    for i in task.idx:
        parts = {p for f in history.commits[i]["files"] for p in _PATH_PARTS.split(f.lower()) if p}
        out.append(min(2, len(query & parts)))
    return np.array(out, dtype=float)


def named_file(history: History, task: Task) -> Any:
    """1 for a memory naming a touched file the prompt names (``tc: flower`` names
    ``tc/f_flower.c``, ``ip route`` names ``ip/iproute.c``), when the task touches files the
    prompt does not name; else 0."""
    import numpy as np

    prompt = content_words(task.task["prompt"])
    joined = "".join(prompt)
    named = set()
    for path in task.task["touched"]:
        stem = path.rsplit("/", 1)[-1].lower().split(".")[0]
        parts = [p for p in _PATH_PARTS.split(stem) if p]
        if any(p in prompt for p in parts) or (
            len("".join(parts)) >= 3 and "".join(parts) in joined
        ):
            named.add(path)
    if not named or len(named) == len(task.task["touched"]):
        return np.zeros(len(task.idx))
    return np.array([1.0 if named & set(history.commits[i]["files"]) else 0.0 for i in task.idx])


def fresh_memory(history: History, task: Task) -> Any:
    """0.5 ** (days from the memory to the task / 10): a second, short recency scale (the
    engine's halves yearly)."""
    import numpy as np

    moment = datetime.fromisoformat(task.task["date"]).timestamp()
    days = np.array([(moment - history.commits[i]["ts"]) / 86400.0 for i in task.idx])
    return 0.5 ** (np.maximum(days, 0.0) / 10.0)


_PREFIX = re.compile(r"^(?:\s*[\w./+-]+:)+\s*")
_FIRST_WORD = re.compile(r"[a-z]+")

ADDS = INTRODUCING_WORDS
"""First words of a subject that bring something in (the usual cause of a later fix): the
list the engine's introducer bonus reads."""

FIXES: frozenset[str] = frozenset(("fix", "fixes", "fixed", "revert", "correct", "don", "avoid"))
"""First words of a subject that repair something ("don" is "don't" as the word index splits
it); a study may rebind it."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\(\))?")


def subject_verb(subject: str) -> str:
    """The first word of ``subject`` after its component prefixes (``tc: flower:``), lower case."""
    found = _FIRST_WORD.match(_PREFIX.sub("", subject).lower())
    return found.group(0) if found else ""


def adds_something(history: History, task: Task) -> Any:
    """1 for a memory whose subject begins by bringing something in (``add``, ``introduce``,
    ``implement``...), else 0."""
    import numpy as np

    return np.array([subject_verb(history.commits[i]["subject"]) in ADDS for i in task.idx], float)


def fixes_something(history: History, task: Task) -> Any:
    """-1 for a memory whose subject begins with a repair (``fix``, ``revert``...), else 0
    (a positive strength pushes repairs down)."""
    import numpy as np

    return -np.array(
        [subject_verb(history.commits[i]["subject"]) in FIXES for i in task.idx], float
    )


def kind_of_change(history: History, task: Task) -> Any:
    """:func:`adds_something` plus :func:`fixes_something`: +1 brings in, -1 repairs."""
    return adds_something(history, task) + fixes_something(history, task)


def identifiers(prompt: str) -> set[str]:
    """The prompt's code identifiers, lower case: a word with ``_``, a call ``name()``, a
    lower-case letter before an upper-case one, or a letter run with digits inside; four
    characters or more."""
    found = set()
    for token in _IDENT.findall(prompt):
        name = token.removesuffix("()")
        if len(name) < 4:
            continue
        if (
            token.endswith("()")
            or "_" in name.strip("_")
            or re.search(r"[a-z][A-Z]", name)
            or re.search(r"[A-Za-z][0-9]+[A-Za-z]", name)
        ):
            found.add(name.lower())
    return found


def identifier_match(history: History, task: Task) -> Any:
    """How many of the prompt's identifiers (:func:`identifiers`) the memory's summary or
    details hold whole, at most two."""
    import numpy as np

    wanted = identifiers(task.task["prompt"])
    if not wanted:
        return np.zeros(len(task.idx))
    out = []
    for i in task.idx:
        commit = history.commits[i]
        text = {
            t.removesuffix("()").lower()
            for t in _IDENT.findall(commit["subject"] + " " + commit["body"])
        }
        out.append(min(2, len(wanted & text)))
    return np.array(out, dtype=float)


def same_files(history: History, task: Task) -> Any:
    """1 for a memory naming exactly the task's touched files (as a set), else 0."""
    import numpy as np

    touched = set(task.task["touched"])
    return np.array([set(history.commits[i]["files"]) == touched for i in task.idx], float)


def prefix_match(history: History, task: Task) -> Any:
    """1 when the memory's subject has the prompt's full component prefix (``tc: flower:``),
    else 0."""
    import numpy as np

    def prefix(text: str) -> str:
        found = _PREFIX.match(text)
        return re.sub(r"\s+", "", found.group(0).lower()) if found else ""

    mine = prefix(task.task["prompt"])
    if not mine:
        return np.zeros(len(task.idx))
    return np.array([prefix(history.commits[i]["subject"]) == mine for i in task.idx], float)


def moves_files(history: History, task: Task) -> Any:
    """1 for a memory whose change renamed files (a move, which rarely brings a fault in),
    else 0."""
    import numpy as np

    return np.array([bool(history.commits[i]["renames"]) for i in task.idx], float)


Feature = Callable[["History", "Task"], Any]

FEATURES: dict[str, Feature] = {
    "file_idf_text": file_idf_text,
    "file_idf_text_instead": file_idf_text_instead,
    "word_pairs": word_pairs,
    "feedback_words": feedback_words,
    "file_word_share": file_word_share,
    "details_length": details_length,
    "path_words": path_words,
    "named_file": named_file,
    "fresh_memory": fresh_memory,
    "adds_something": adds_something,
    "fixes_something": fixes_something,
    "kind_of_change": kind_of_change,
    "identifier_match": identifier_match,
    "same_files": same_files,
    "prefix_match": prefix_match,
    "moves_files": moves_files,
}
"""Every feature by name (``--feature``)."""


def repair_after_repair(history: History, task: Task) -> Any:
    """:func:`fixes_something` when the prompt itself begins with a repair (its word "fix"
    matches the other repairs' in the word channel), else 0."""
    import numpy as np

    if subject_verb(task.task["prompt"]) not in FIXES:
        return np.zeros(len(task.idx))
    return fixes_something(history, task)


FEATURES["repair_after_repair"] = repair_after_repair
