"""Every input surface, fuzzed (tests/faults/surfaces.py): no case ends in a traceback or an
answer outside the contract. A bounded run here on every change; 10,000 cases a surface in
bench/faults/fuzz.py; every case that ever found something is replayed from the corpus."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.faults.surfaces import SURFACES, corpus_cases, scratch

# Per surface, what a bounded run may cost here (card checks load a card each: ~50 ms a case).
EXAMPLES = {"card-batch": 25, "serial": 40, "model": 40}


@pytest.fixture(autouse=True)
def _own_card_cache(tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "card-cache"))


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with scratch() as name:
        yield Path(name)


@pytest.mark.parametrize("name", sorted(SURFACES))
def test_every_case_of_the_corpus_is_answered(name: str, folder: Path) -> None:
    for case in corpus_cases(name):
        SURFACES[name].check(case.read_bytes(), folder)


@pytest.mark.parametrize("name", sorted(SURFACES))
def test_generated_cases_are_answered(name: str, folder: Path) -> None:
    surface = SURFACES[name]
    outcomes: dict[str, int] = {}

    # The same seeds every run, so the suite is repeatable; bench/faults/fuzz.py draws fresh ones.
    @settings(max_examples=EXAMPLES.get(name, 80), deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 2**32))  # a seed: the grammar draws as the benchmark's run does
    def run(seed: int) -> None:
        outcome = surface.check(surface.generate(random.Random(seed)), folder)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1

    run()
    # The grammar reaches both sides of the surface: some cases pass, some are refused.
    assert outcomes.get("ok", 0) > 0 and outcomes.get("refused", 0) > 0, outcomes


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.binary(max_size=300))
def test_any_bytes_to_score_and_config_are_answered(data: bytes) -> None:
    with scratch() as name:
        SURFACES["score"].check(data, Path(name))
        SURFACES["config"].check(data, Path(name))
