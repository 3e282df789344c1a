"""The offline association features (``bench.quality_features.assoc_*``): a model learns
which words go together from the memories older than the task, and only from those."""

from __future__ import annotations

import json
from pathlib import Path

from bench import quality_features as features
from bench import quality_offline as offline

TOPICS = (
    ("vf sriov spoof trust", "ip/ipvf.c"),
    ("flower mirred ingress filter", "tc/f_flower.c"),
    ("xfrm esp spi ipsec", "ip/xfrm.c"),
    ("json output print format", "lib/json.c"),
)


def _history(root: Path) -> Path:
    """Forty memories on four topics, each topic's words together, then one memory of a word
    no earlier memory holds and one on the vf topic without the word vf; the task comes after
    all of them."""
    folder = root / "hist"
    folder.mkdir(parents=True)
    commits = []
    late = {40: ("latecomer", "late.c"), 41: ("sriov spoof", "ip/ipvf.c")}
    for idx in range(42):
        text, path = TOPICS[idx % 4] if idx < 40 else late[idx]
        commits.append(
            {
                "idx": idx,
                "sha": f"{idx + 1:04d}" * 10,
                "date": "2023-01-01T00:00:00+00:00",
                "ts": 1672531200 + idx * 86400,
                "subject": f"change {idx}: {text}",
                "body": text,
                "files": [path],
                "renames": [],
                "deleted": [],
            }
        )
    task = {
        "task_sha": "ff" * 20,
        "task_idx": 42,
        "date": "2023-03-01T00:00:00+00:00",
        "prompt": "fix vf handling",
        "touched": ["ip/ipvf.c"],
        "relevant": [commits[0]["sha"]],
        "relevant_idx": [0],
        "kind": "fixes",
        "resolved_by": "sha",
        "split": "pre_cut",
    }
    (folder / "commits.jsonl").write_text("".join(json.dumps(c) + "\n" for c in commits))
    (folder / "tasks.jsonl").write_text(json.dumps(task) + "\n")
    return root


def test_the_prompt_is_nearer_a_memory_of_its_topic_without_its_words(tmp_path: Path) -> None:
    data = _history(tmp_path / "data")
    history = offline.History(data / "hist")
    for context in ("words", "window", "files"):
        model = features.AssocModel(history, 40, context)
        vf = model.vectors[model.vocab["vf"]]
        assert vf @ model.vectors[model.vocab["sriov"]] > vf @ model.vectors[model.vocab["esp"]]
        assert "latecomer" not in model.vocab  # only memories before ``up_to`` are read
    row = {
        "history": "hist",
        "task": "ff" * 20,
        "candidates": [
            {"id": history.commits[i]["sha"][:8], "relevant": i == 0, "signals": {"file": 0.3}}
            for i in (2, 0, 41)
        ],
    }
    dump = tmp_path / "dump.jsonl"
    dump.write_text(json.dumps(row) + "\n")
    tasks, histories = offline.read_dump([dump], data)
    for name in ("assoc_words", "assoc_window", "assoc_files"):
        xfrm, vf, sriov = features.FEATURES[name](histories["hist"], tasks[0])
        assert vf > xfrm and sriov > xfrm, name
        xfrm, vf, sriov = features.FEATURES[f"{name}_expand"](histories["hist"], tasks[0])
        assert vf == 0.0, name  # it holds the prompt's only known word: nothing to expand
        assert sriov > xfrm, name
