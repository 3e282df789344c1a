"""A provider embedder plugged in by the user's own configuration, end to end through the CLI.

The provider here knows two topics and nothing of words: a memory and a prompt about the same
topic share no token, so only the provider's vectors can bring the memory back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CliResult

from recall.ranking.embedders import configured_embedder
from recall.settings import embedder_spec

PROVIDER = '''
import os

import numpy as np

TOPICS = (("kettle", "teapot", "boil"), ("violin", "cello", "viola"))


class TopicEmbedder:
    """How much a text is about each topic (then zeros up to TOPIC_DIM); TOPIC_FAIL makes
    every call fail, as a provider behind a network would when it is down."""

    def __init__(self):
        self.name = os.environ.get("TOPIC_NAME", "topics-v1")
        self.dim = int(os.environ.get("TOPIC_DIM", "2"))

    def embed(self, text):
        if os.environ.get("TOPIC_FAIL"):
            raise ConnectionError("provider unreachable")
        words = text.lower().split()
        counts = [sum(w in topic for w in words) for topic in TOPICS]
        return np.array(counts + [0] * (self.dim - 2), dtype=float)

    def embed_many(self, texts):
        return np.stack([self.embed(text) for text in texts])
'''

Cli = Callable[..., CliResult]


@pytest.fixture
def provider(tmp_path: Path) -> dict[str, str]:
    """A provider module on the import path of the CLI's process."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "topic_provider.py").write_text(PROVIDER, encoding="utf-8")
    return {"PYTHONPATH": str(folder)}


def _configure(home: Path, spec: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'embedder = "{spec}"\n', encoding="utf-8")


def _recall(cli: Cli, env: dict[str, str], prompt: str) -> tuple[list[dict], str]:
    result = cli("recall", prompt, "--json", "--no-record", "--scope", "project", env=env)
    assert result.code in (0, 1), result
    return json.loads(result.stdout)["results"], result.stderr


def _seed(cli: Cli) -> str:
    memory = cli("remember", "teapot whistles", "-c", "gotcha", "-f", "src/app.py", "--json")
    cli("remember", "violin strings snap", "-c", "gotcha", "-f", "src/util.py", "--json")
    return json.loads(memory.stdout)["id"]


def test_the_configured_provider_ranks_the_semantic_channel(
    cli: Cli, tether_home: Path, provider: dict[str, str]
) -> None:
    teapot = _seed(cli)
    plain, _ = _recall(cli, provider, "kettle boil")
    assert all(hit["id"] != teapot for hit in plain)  # the hash-bag shares no token

    _configure(tether_home, "topic_provider:TopicEmbedder")
    hits, stderr = _recall(cli, provider, "kettle boil")

    assert hits[0]["id"] == teapot, (hits, stderr)
    assert "sem 1.00" in hits[0]["receipt"]
    assert "violin" not in " ".join(hit["summary"] for hit in hits if "sem" in hit["receipt"])


def test_a_provider_that_cannot_load_is_reported_and_recall_goes_on(
    cli: Cli, tether_home: Path, provider: dict[str, str]
) -> None:
    teapot = _seed(cli)
    _configure(tether_home, "no_such_provider:Embedder")

    hits, stderr = _recall(cli, provider, "teapot")

    assert [hit["id"] for hit in hits][:1] == [teapot]  # text still finds it
    assert "no_such_provider:Embedder" in stderr and "without its semantic channel" in stderr
    assert all("sem" not in hit["receipt"] for hit in hits)  # no hash-bag stand-in either


def test_a_provider_failing_while_embedding_is_reported_and_recall_goes_on(
    cli: Cli, repo: Path, tether_home: Path, provider: dict[str, str]
) -> None:
    teapot = _seed(cli)
    _configure(tether_home, "topic_provider:TopicEmbedder")
    down = {**provider, "TOPIC_FAIL": "1"}

    hits, stderr = _recall(cli, down, "teapot")

    assert [hit["id"] for hit in hits][:1] == [teapot]
    assert "embed() failed (ConnectionError: provider unreachable)" in stderr
    assert stderr.count("failed") == 1  # said once
    payload = {"session_id": "s2", "cwd": str(repo), "prompt": "why does the teapot whistle?"}
    hooked = cli("hook", "prompt", stdin=json.dumps(payload), env=down)
    assert hooked.code == 0 and hooked.stderr == "", hooked  # the agent never sees a failure
    log = (repo / ".tether" / "hooks.log").read_text(encoding="utf-8")
    assert "embed() failed (ConnectionError: provider unreachable)" in log
    assert "Traceback" not in log  # reported as a notice, not as a crash of the hook


def test_a_provider_named_like_a_path_or_resized_keeps_working(
    cli: Cli, repo: Path, tether_home: Path, provider: dict[str, str]
) -> None:
    teapot = _seed(cli)
    _configure(tether_home, "topic_provider:TopicEmbedder")
    named = {**provider, "TOPIC_NAME": "org/topics"}

    first, _ = _recall(cli, named, "kettle boil")
    smaller = {**named, "TOPIC_DIM": "3"}
    # vectors of the new size are made by a write (here a reindex), never by a recall
    assert cli("reindex", env=smaller).code == 0
    resized, stderr = _recall(cli, smaller, "kettle boil")

    assert first[0]["id"] == teapot and resized[0]["id"] == teapot, stderr
    cached = sorted(p.name for p in (repo / ".tether" / "cache").glob("*.npy"))
    assert len(cached) == 2 and all("org_topics-3_" in name for name in cached)


def test_a_provider_is_built_once_per_setting(
    provider: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(provider["PYTHONPATH"])
    said: list[str] = []
    spec = "topic_provider:TopicEmbedder"

    first, on = configured_embedder(spec, said.append)
    again, _ = configured_embedder(f" {spec} ", said.append)

    assert on and first is not None and again is first and said == []
    assert configured_embedder("hash", said.append) == (None, True)


def test_a_repository_cannot_choose_the_embedder(
    cli: Cli, repo: Path, tether_home: Path, provider: dict[str, str]
) -> None:
    teapot = _seed(cli)
    (repo / "pyproject.toml").write_text(
        '[tool.tether]\nembedder = "topic_provider:TopicEmbedder"\n', encoding="utf-8"
    )

    hits, stderr = _recall(cli, provider, "kettle boil")

    assert all(hit["id"] != teapot for hit in hits)
    assert "embedder" in stderr and "pyproject.toml" in stderr


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("hash", "hash"),
        (" pkg.mod:Class ", "pkg.mod:Class"),
        ("pkg:factory.attr", "pkg:factory.attr"),
    ],
)
def test_embedder_spec_accepts(value: str, parsed: str) -> None:
    assert embedder_spec(value) == parsed


@pytest.mark.parametrize("value", ["", "pkg.mod", "pkg:", ":Class", "pkg mod:Class", 3, None])
def test_embedder_spec_refuses(value: object) -> None:
    with pytest.raises(ValueError, match="hash"):
        embedder_spec(value)


def test_the_prompt_hook_uses_the_provider_too(
    cli: Cli, repo: Path, tether_home: Path, provider: dict[str, str]
) -> None:
    teapot = _seed(cli)
    _configure(tether_home, "topic_provider:TopicEmbedder")
    payload = {"session_id": "s1", "cwd": str(repo), "prompt": "kettle boil"}

    result = cli("hook", "prompt", stdin=json.dumps(payload), env=provider)

    assert result.code == 0, result
    assert teapot in result.stdout, result
