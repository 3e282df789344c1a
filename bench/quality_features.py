"""Candidate features tried offline on the dumped recall candidates (``bench.quality_offline``).

Each feature gives one value per candidate of a task, in the dump's order; the offline
reorder adds ``strength * value`` to the engine's score. They read what a dump does not hold
from the history's own files: the memories' texts and files, the task's prompt and files.
Word statistics are the whole history's (a task's own statistics would be those before it;
the difference is small next to the gains looked for, and it is one pass instead of one per
task; the association models (``assoc_*``) are the exception: each task uses one built from
the memories older than itself). Files are matched by name: renames are not followed here.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

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


SERIES_HOURS = 72.0
"""How close in time two memories on the touched files must be to count as one series."""


def _on_files_words(task: Task) -> tuple[Any, Any]:
    """Each candidate's word score and whether it is on a touched file (a file signal)."""
    import numpy as np

    found = np.array([s.get("words", 0.0) for s in task.signals], float)
    on_file = np.array(["file" in s for s in task.signals], bool)
    return found, on_file


def _series_best(history: History, task: Task) -> tuple[Any, Any]:
    """For each candidate on a touched file: the best word score among the other candidates
    on a touched file dated within ``SERIES_HOURS`` of it (0 without one), and its own."""
    import numpy as np

    found, on_file = _on_files_words(task)
    best = np.zeros(len(task.idx))
    at = np.flatnonzero(on_file)
    if len(at) > 1:
        times = np.array([history.commits[task.idx[k]]["ts"] for k in at], float)
        near = np.abs(times[:, None] - times[None, :]) <= SERIES_HOURS * 3600
        np.fill_diagonal(near, False)
        best[at] = np.where(near, found[at][None, :], 0.0).max(axis=1)
    return best, found


def series_words(history: History, task: Task) -> Any:
    """A patch series shares its word match: a memory on a touched file gets the best word
    score of another memory on a touched file written within ``SERIES_HOURS`` of it (a
    feature brought in over several commits: the one the prompt's words name is not always
    the one that brought the fault)."""
    return _series_best(history, task)[0]


def series_words_gap(history: History, task: Task) -> Any:
    """:func:`series_words` less the memory's own word score, where that is more (what its
    series adds to it)."""
    import numpy as np

    best, found = _series_best(history, task)
    return np.maximum(0.0, best - found)


def file_words_rank(history: History, task: Task) -> Any:
    """Among the candidates on a touched file with a word score, ``0.5 ** rank`` by that
    score (the best word match of the touched files' memories 1, the next 0.5...), else 0:
    the text's order within the touched files, whatever its magnitude."""
    import numpy as np

    found, on_file = _on_files_words(task)
    value = np.zeros(len(task.idx))
    at = np.flatnonzero(on_file & (found > 0))
    order = at[np.argsort(-found[at], kind="stable")]
    value[order] = 0.5 ** np.arange(len(order))
    return value


def file_words_share(history: History, task: Task) -> Any:
    """A candidate on a touched file's word score as a share of the best such score (0..1)."""
    import numpy as np

    found, on_file = _on_files_words(task)
    top = found[on_file].max(initial=0.0)
    return np.where(on_file & (top > 0), found / max(top, 1e-12), 0.0)


FIXED_AFTER_DAYS = 30.0
"""How soon after a memory a repair on its files counts as one of its follow-up fixes."""


def _fixed_after(history: History, task: Task, shared_word: bool) -> Any:
    """For each candidate on a touched file: how many later memories, older than the task,
    name one of its touched files, begin with a repair word (``FIXES``) and were written
    within ``FIXED_AFTER_DAYS`` of it (with ``shared_word``, only those sharing a word of
    three letters or more, not a function word, with its summary), as ``log(1 + count)``."""
    import numpy as np

    touched = set(task.task["touched"])
    up_to = task.task["task_idx"]
    value = np.zeros(len(task.idx))
    for k, idx in enumerate(task.idx):
        if "file" not in task.signals[k]:
            continue
        commit = history.commits[idx]
        mine = {w for w in content_words(commit["subject"]) if len(w) >= 3}
        later: set[int] = set()
        for path in touched.intersection(commit["files"]):
            for other in history.file_mems.get(path, ()):
                if not idx < other < up_to or other in later:
                    continue
                fix = history.commits[other]
                if fix["ts"] - commit["ts"] > FIXED_AFTER_DAYS * 86400:
                    continue
                if subject_verb(fix["subject"]) not in FIXES:
                    continue
                if shared_word and not mine.intersection(words(fix["subject"])):
                    continue
                later.add(other)
        value[k] = math.log1p(len(later))
    return value


def fixed_after(history: History, task: Task) -> Any:
    """:func:`_fixed_after` of any repair on the memory's touched files: a change that needed
    fixing soon after tends to hold more faults."""
    return _fixed_after(history, task, False)


def fixed_after_same_words(history: History, task: Task) -> Any:
    """:func:`_fixed_after` of the repairs sharing a word with the memory's summary."""
    return _fixed_after(history, task, True)


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
    "series_words": series_words,
    "series_words_gap": series_words_gap,
    "file_words_rank": file_words_rank,
    "file_words_share": file_words_share,
    "fixed_after": fixed_after,
    "fixed_after_same_words": fixed_after_same_words,
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


RARE_IDF = 5.0
"""A word's ``log(memories / (1 + memories holding it))`` above which it is rare: held by
fewer than about one memory in 150."""


def _rare_shared(history: History, task: Task) -> list[list[float]]:
    """For each candidate, the idf of every content word of the prompt it holds that is rare
    (:data:`RARE_IDF`)."""
    prompt = content_words(task.task["prompt"])
    found = []
    for i in task.idx:
        held = set(history.words(i))
        found.append([idf for w in prompt if w in held and (idf := history.idf(w)) >= RARE_IDF])
    return found


def rare_word(history: History, task: Task) -> Any:
    """How far the rarest word of the prompt a memory holds lies above :data:`RARE_IDF` (0 when
    it holds none so rare): a rare word shared counts beyond the word channel's saturation."""
    import numpy as np

    return np.array(
        [max(idfs, default=RARE_IDF) - RARE_IDF for idfs in _rare_shared(history, task)]
    )


def rare_word_count(history: History, task: Task) -> Any:
    """How many rare words of the prompt (:data:`RARE_IDF`) a memory holds."""
    import numpy as np

    return np.array([len(idfs) for idfs in _rare_shared(history, task)], dtype=float)


FEATURES["rare_word"] = rare_word
FEATURES["rare_word_count"] = rare_word_count


# Word associations learned from the store itself (a latent space of its own vocabulary).

ASSOC_CHUNK = 0.05
"""Share of the history between two builds of an association model; a task uses the latest
model built only from memories older than itself."""

ASSOC_VOCAB = 10_000
"""Words a model knows at most (the most widely held; a word needs three memories)."""

ASSOC_MIN_DF = 3
"""Memories a word must be in for a model to know it."""

ASSOC_DIMS = 128
"""Dimensions the truncated SVD keeps (64 and 200 measured the same, within a task or two)."""

ASSOC_DOC_WORDS = 60
"""A memory's distinct words counted in the word-word co-occurrence (summary's first)."""

ASSOC_WINDOW = 5
"""With ``context="window"``: two known words at most this far apart in a memory's text
(counting known words only) co-occur."""

ASSOC_MAX_FILES = 30
"""A memory naming more files adds nothing to the word-file co-occurrence (a mass edit)."""

_HEXISH = re.compile(r"^(?=.*\d)[0-9a-f]{7,}$|^\d+$")


def _assoc_tokens(history: History, idx: int) -> list[str]:
    """Memory ``idx``'s distinct words, summary's first, without function words, numbers and
    hashes."""
    return [
        w
        for w in dict.fromkeys(history.words(idx))
        if w not in FUNCTION_WORDS and not _HEXISH.match(w)
    ]


def randomized_svd(matrix: Any, rank: int, seed: int = 0, power: int = 2) -> tuple[Any, Any]:
    """The ``rank`` leading left singular vectors and values of a dense ``matrix`` (Halko,
    Martinsson and Tropp: a Gaussian sketch, ``power`` subspace iterations)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    width = min(rank + 10, min(matrix.shape))
    sketch = matrix @ rng.standard_normal((matrix.shape[1], width), dtype=np.float32)
    basis, _ = np.linalg.qr(sketch)
    for _ in range(power):
        basis, _ = np.linalg.qr(matrix.T @ basis)
        basis, _ = np.linalg.qr(matrix @ basis)
    small = basis.T @ matrix
    left, values, _ = np.linalg.svd(small, full_matrices=False)
    return (basis @ left)[:, :rank], values[:rank]


def _ppmi(rows: Any, cols: Any, counts: Any, shape: tuple[int, int]) -> Any:
    """A dense float32 PPMI matrix from co-occurrence counts (contexts smoothed to ^0.75)."""
    import numpy as np

    row_sum = np.bincount(rows, weights=counts, minlength=shape[0])
    col_sum = np.bincount(cols, weights=counts, minlength=shape[1])
    smooth = col_sum**0.75
    pmi = np.log(counts * smooth.sum() / (row_sum[rows] * smooth[cols]))
    keep = pmi > 0
    out = np.zeros(shape, dtype=np.float32)
    out[rows[keep], cols[keep]] = pmi[keep]
    return out


class AssocModel:
    """Word vectors learned from the memories before ``up_to``: PPMI of word co-occurrence
    (``context="words"``: two words in one memory; ``"window"``: two words within
    ``ASSOC_WINDOW`` of each other, every time; ``"files"``: a word in a memory that
    changed a file), reduced by a truncated SVD to ``ASSOC_DIMS`` dimensions."""

    def __init__(self, history: History, up_to: int, context: str) -> None:
        """Build from memories ``0 .. up_to - 1`` of ``history``."""
        import numpy as np

        self._memories: dict[int, Any] = {}
        docs = [_assoc_tokens(history, i) for i in range(up_to)]
        df = Counter(w for doc in docs for w in doc)
        common = [w for w, n in df.most_common(ASSOC_VOCAB) if n >= ASSOC_MIN_DF]
        self.vocab = {w: k for k, w in enumerate(common)}
        self.idf = np.log(up_to / (1.0 + np.array([df[w] for w in common], dtype=float)))
        size = len(common)
        codes = []
        if context == "words":
            for doc in docs:
                ids = np.unique([self.vocab[w] for w in doc[:ASSOC_DOC_WORDS] if w in self.vocab])
                if len(ids) > 1:
                    first, second = np.triu_indices(len(ids), 1)
                    codes.append(ids[first] * size + ids[second])
            width = size
        elif context == "window":
            for i in range(up_to):
                seq = np.array(
                    [self.vocab[w] for w in history.words(i) if w in self.vocab], dtype=np.int64
                )
                for gap in range(1, ASSOC_WINDOW + 1):
                    first, second = seq[:-gap], seq[gap:]
                    apart = first != second
                    low = np.minimum(first, second)[apart]
                    codes.append(low * size + np.maximum(first, second)[apart])
            width = size
        else:
            files = Counter(
                f
                for i in range(up_to)
                if len(history.commits[i]["files"]) <= ASSOC_MAX_FILES
                for f in history.commits[i]["files"]
            )
            kept = {f: k for k, (f, n) in enumerate(files.most_common(ASSOC_VOCAB)) if n >= 2}
            width = max(len(kept), 1)
            for i, doc in enumerate(docs):
                paths = history.commits[i]["files"]
                if len(paths) > ASSOC_MAX_FILES:
                    continue
                ids = np.array([self.vocab[w] for w in doc if w in self.vocab], dtype=np.int64)
                where = np.array([kept[f] for f in set(paths) if f in kept], dtype=np.int64)
                if len(ids) and len(where):
                    codes.append((ids[:, None] * width + where[None, :]).ravel())
        self.vectors = np.zeros((size, 1), dtype=np.float32)
        if not codes or size < 2:
            return
        pairs, counts = np.unique(np.concatenate(codes), return_counts=True)
        rows, cols = pairs // width, pairs % width
        counts = counts.astype(float)
        if context != "files":
            rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
            counts = np.concatenate([counts, counts])
        matrix = _ppmi(rows, cols, counts, (size, width))
        left, values = randomized_svd(matrix, min(ASSOC_DIMS, size - 1, width - 1))
        vectors = (left * np.sqrt(values)).astype(np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.vectors = vectors / np.where(norms > 0, norms, 1.0)

    def memory(self, history: History, idx: int) -> Any:
        """Memory ``idx``'s vector (:meth:`embed` of its words), kept once made."""
        found = self._memories.get(idx)
        if found is None:
            found = self._memories[idx] = self.embed(_assoc_tokens(history, idx))
        return found

    def embed(self, tokens: Sequence[str]) -> Any:
        """The idf-weighted mean of the known ``tokens``' vectors, unit length (zeros when
        none is known)."""
        import numpy as np

        ids = [self.vocab[w] for w in tokens if w in self.vocab]
        if not ids:
            return np.zeros(self.vectors.shape[1], dtype=np.float32)
        mean = self.idf[ids].astype(np.float32) @ self.vectors[ids]
        norm = float(np.linalg.norm(mean))
        return mean / norm if norm > 0 else mean


_MODELS: WeakKeyDictionary[History, dict[tuple[str, int], AssocModel]] = WeakKeyDictionary()
"""Each history's models by context and the memories they were built from."""


def assoc_model(history: History, task: Task, context: str) -> AssocModel | None:
    """The latest model of ``context`` built from memories older than the task (rebuilt every
    ``ASSOC_CHUNK`` of the history), or None before the first build."""
    step = max(1, math.ceil(ASSOC_CHUNK * len(history.commits)))
    up_to = task.task["task_idx"] // step * step
    if up_to < step:
        return None
    models = _MODELS.setdefault(history, {})
    if (context, up_to) not in models:
        models[context, up_to] = AssocModel(history, up_to, context)
    return models[context, up_to]


def _assoc(history: History, task: Task, context: str, expand_only: bool) -> Any:
    """Cosine of the prompt's vector and each candidate's in the model of ``context``; with
    ``expand_only`` the prompt's vector holds only the words the candidate lacks."""
    import numpy as np

    out = np.zeros(len(task.idx))
    model = assoc_model(history, task, context)
    if model is None:
        return out
    prompt = [w for w in content_words(task.task["prompt"]) if not _HEXISH.match(w)]
    whole = model.embed(prompt)
    for k, i in enumerate(task.idx):
        memory = model.memory(history, i)
        if expand_only:
            held = set(history.words(i))
            query = model.embed([w for w in prompt if w not in held])
        else:
            query = whole
        out[k] = float(query @ memory)
    return out


def assoc_words(history: History, task: Task) -> Any:
    """Cosine of prompt and memory in a PPMI + SVD space of words met in the same memory."""
    return _assoc(history, task, "words", False)


def assoc_words_expand(history: History, task: Task) -> Any:
    """:func:`assoc_words` with only the prompt's words the memory does not hold."""
    return _assoc(history, task, "words", True)


def assoc_window(history: History, task: Task) -> Any:
    """:func:`assoc_words` with words near each other (``ASSOC_WINDOW``) as the context."""
    return _assoc(history, task, "window", False)


def assoc_window_expand(history: History, task: Task) -> Any:
    """:func:`assoc_window` with only the prompt's words the memory does not hold."""
    return _assoc(history, task, "window", True)


def assoc_files(history: History, task: Task) -> Any:
    """Cosine of prompt and memory in a PPMI + SVD space of words by the files their memories
    changed."""
    return _assoc(history, task, "files", False)


def assoc_files_expand(history: History, task: Task) -> Any:
    """:func:`assoc_files` with only the prompt's words the memory does not hold."""
    return _assoc(history, task, "files", True)


FEATURES["assoc_words"] = assoc_words
FEATURES["assoc_words_expand"] = assoc_words_expand
FEATURES["assoc_window"] = assoc_window
FEATURES["assoc_window_expand"] = assoc_window_expand
FEATURES["assoc_files"] = assoc_files
FEATURES["assoc_files_expand"] = assoc_files_expand
