"""The compiled-card cache is data, never code (docs/cards.md): a planted file in the cache's
predictable place runs nothing and changes no answer."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from array import array
from pathlib import Path

import pytest

from config.cards import _cache_key, cache, load_card
from engine.american.compiled import CompiledCard

CARD = 'card "test" 2026 v2\nA-1 X 25 : 1111a 2222a 3333a 44a\n'


class _Planted:
    """Unpickling this would run ``touch MARKER``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture
def card_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "c.card"
    path.write_text(CARD)
    return path


def test_a_planted_pickle_is_never_run(card_file: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    folder = tmp_path / "cache" / "mahjong-table"
    folder.mkdir(parents=True)
    key = _cache_key(card_file.read_bytes())
    planted = pickle.dumps(_Planted(marker))
    for name in (f"card-{key}.pickle", f"card-{key}.data"):  # the old name and the new
        (folder / name).write_bytes(planted)
    assert load_card(card_file).lines[0].id == "A-1"
    assert not marker.exists()


def test_a_cache_others_may_write_is_not_read(card_file: Path, tmp_path: Path) -> None:
    compiled = load_card(card_file)
    [path] = (tmp_path / "cache" / "mahjong-table").glob("card-*.data")
    forged = compiled._replace(lines=(compiled.lines[0]._replace(points=99),))
    path.write_bytes(cache.encode(forged))
    assert load_card(card_file).lines[0].points == 99  # our own file: the cache is used
    path.chmod(0o666)
    assert load_card(card_file).lines[0].points == 25  # writable by others: compiled afresh


def test_cache_round_trip_is_exact(card_file: Path) -> None:
    compiled = load_card(card_file, use_cache=False)
    assert cache.decode(cache.encode(compiled)) == compiled


@pytest.mark.parametrize(
    "data",
    [b"", b"[]", b"{}", b'{"format": 2}\n', b"\x80\x04K\x01.", b"[" * 100_000,
     b'{"format": 1, "name": "x", "year": 1, "version": 1, "options": {}, "lines": [],'
     b' "expansions": [[0, 0, [[99, 1]], [], []]], "warnings": []}'],
)
def test_anything_but_a_compiled_card_decodes_to_nothing(data: bytes) -> None:
    assert cache.decode(data) is None


def _resealed(header: dict[str, object], body: bytes) -> bytes:
    header["sha256"] = hashlib.sha256(body).hexdigest()
    return json.dumps(header).encode() + b"\n" + body


def test_a_damaged_or_out_of_range_body_decodes_to_nothing(card_file: Path) -> None:
    compiled: CompiledCard = load_card(card_file, use_cache=False)
    head, _, body = cache.encode(compiled).partition(b"\n")
    header = json.loads(head)
    flipped = bytes([body[0] ^ 1]) + body[1:]
    assert cache.decode(head + b"\n" + flipped) is None  # the checksum
    assert cache.decode(_resealed(dict(header), body)) == compiled
    # The first pair's count (after five words of each expansion's head) set to 17 > FIELD,
    # with a checksum that matches: still refused.
    words = array("H")
    words.frombytes(body[: 2 * header["words"]])
    first_pair = 5 * header["expansions"]
    words[first_pair + 1] = 17
    changed = words.tobytes() + body[2 * header["words"]:]
    assert cache.decode(_resealed(dict(header), changed)) is None
