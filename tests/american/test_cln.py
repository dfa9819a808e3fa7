"""The card notation: parsing, and lint problems that name line and column (design §5.4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from config.cards import SAMPLE_CARD, load_card, load_card_text
from engine.american.card import CardError, compile_card
from engine.american.cln import parse_card
from engine.tiles import GD, RD, WD, parse_tiles


def card(*lines: str) -> str:
    return 'card "test" 2026 v2\n' + "\n".join(lines) + "\n"


def errors(text: str) -> list[tuple[int, int, str]]:
    _, problems = compile_card(text)
    return [(p.line, p.column, p.code) for p in problems if p.severity == "error"]


def test_sample_card_loads_clean() -> None:
    compiled, problems = compile_card(SAMPLE_CARD.read_text())
    assert compiled is not None and problems == []
    assert compiled.year == 2026 and len(compiled.lines) >= 20
    assert compiled.lowest_value == 25


def test_header_options_sections_and_line_fields() -> None:
    """K-2: each line shows its value and X or C."""
    parsed, problems = parse_card(
        'card "Club card" 2027 v3\noption heavenly_double off\noption units 5\n'
        'section EV "Evens"\nEV-1 C 40 : 88a 666a 44b 222b 0000 ; a~b "1 or 2 suits"\n')
    assert problems == []
    assert (parsed.name, parsed.year, parsed.version) == ("Club card", 2027, 3)
    assert parsed.options == {"heavenly_double": False, "units": 5}
    line = parsed.lines[0]
    assert (line.id, line.section, line.concealed, line.points) == ("EV-1", "EV", True, 40)
    assert line.note == "1 or 2 suits"
    assert [g.text for g in line.patterns[0]] == ["88a", "666a", "44b", "222b", "0000"]


def test_group_boundaries_are_kept_a_kong_is_not_two_pairs() -> None:
    # American K-7: a block of pairs prints like a kong; the notation keeps the groups apart.
    parsed, _ = parse_card(card("A-1 X 25 : 22a 22a 3333b 4444c 55a"))
    groups = parsed.lines[0].patterns[0]
    assert [g.is_set for g in groups] == [False, False, True, True, False]
    year = parse_card(card("A-1 X 25 : 2026a 2222b 4444c 66c"))[0].lines[0].patterns[0][0]
    assert not year.is_like and year.size == 4


def test_variable_runs_take_offsets() -> None:
    parsed, _ = parse_card(card("A-1 X 25 : X0X1X2a XXXX3b YYYY0c FFF"))
    run = parsed.lines[0].patterns[0][0]
    assert [(e.symbol, e.offset, e.count) for e in run.elements] == [
        ("X", 0, 1), ("X", 1, 1), ("X", 2, 1)]


def test_unknown_symbol_names_line_and_column() -> None:
    line = "A-1 X 25 : 111a 222b 333q 4444c 5a"
    assert errors(card(line)) == [(2, line.index("q") + 1, "P1")]


def test_line_that_is_not_14_tiles() -> None:
    # "A hand is 14 tiles": reported at the first group of the alternative.
    assert errors(card("A-1 X 25 : 111a 222b 3333c 4444a 5a | 11a 22b")) == [
        (2, 12, "L1"), (2, 39, "L1")]


def test_variable_with_no_possible_value() -> None:
    # X in {8,9} but the kong needs X+2 to stay within 1-9 (K-5: no wrap).
    line = "A-1 X 25 : XXX0a XXXX2a 1111b 333c ; X in {8,9}"
    assert errors(card(line)) == [(2, line.index("XXXX2a") + 1, "L5")]


def test_every_problem_is_reported_and_card_is_not_loaded() -> None:
    text = card("A-1 X 25 : 111a 222b 333q 4444c 5a", "A-2 Q 25 : 1111a 2222b 3333c 44a",
                "A-3 X 25 : DDD 1111a 2222a 3333a ; X oddish", "A-9 X 25 : 1111a 2222b 3333c 44a",
                "A-9 X 25 : 1111a 2222b 3333c 44a")
    found = errors(text)
    assert (2, 25, "P1") in found and (3, 5, "P5") in found and (4, 36, "P10") in found
    assert (6, 1, "P4") in found
    with pytest.raises(CardError) as info:
        load_card_text(text.encode(), "t.card", use_cache=False)
    assert info.value.where == "t.card:2:25"


def test_dragon_needs_a_suit_and_soap_never_in_a_run() -> None:
    assert errors(card("A-1 X 25 : DDD 1111a 2222a 333a")) == [(2, 12, "L4")]
    # T-5: Soap as zero never joins a consecutive run.
    assert (2, 12, "L8") in errors(card("A-1 X 25 : X00X1a 1111b 2222b 3333c"))


def test_lint_warns_on_parenthetical_without_structure_and_duplicates() -> None:
    text = card('A-1 X 25 : 1111a 2222a 3333a 44a "any consecutive run"',
                "A-2 X 30 : 1111a 2222a 3333a 44a")
    compiled, problems = compile_card(text)
    assert compiled is not None  # warnings never stop a card loading
    codes = {(p.code, p.severity) for p in problems}
    assert ("L9", "warning") in codes and ("L7", "warning") in codes


def test_dragons_follow_suits_t4_and_opposite_by_colour() -> None:
    compiled, _ = compile_card(card("A-1 X 25 : 1111a DDDa DDDb 2222c"))
    assert compiled is not None
    for exp in compiled.expansions:
        tiles = exp.tiles()
        ones = next(t for t in tiles if t < 27 and t % 9 == 0)
        matching = {0: GD, 1: RD, 2: WD}[ones // 9]  # Green-Bam, Red-Crak, Soap-Dot
        assert tiles.count(matching) == 3
        assert sum(tiles.count(d) for d in (RD, GD, WD)) == 6
        assert len({t for t in tiles if t in (RD, GD, WD)}) == 2  # DDDb: another dragon
    assert len(compiled.expansions) == 6


def test_suits_differ_unless_tilde_and_fixed_suits_are_fixed() -> None:
    """K-3: colours mean how many suits, never which; words ("Any 1 or 2 Suits") override."""
    one_or_two, _ = compile_card(card("A-1 X 25 : 1111a 2222b 3333b 44a ; a~b"))
    two, _ = compile_card(card("A-1 X 25 : 1111a 2222b 3333b 44a"))
    assert one_or_two is not None and two is not None
    assert len(one_or_two.expansions) == 9 and len(two.expansions) == 6
    fixed, _ = compile_card(card("A-1 X 25 : 1111@C 5555@B 66@D 000 F"))
    assert fixed is not None and len(fixed.expansions) == 1
    assert fixed.expansions[0].tiles() == sorted(parse_tiles(
        "1C 1C 1C 1C 5B 5B 5B 5B 6D 6D WD WD WD F"))


def test_consecutive_runs_never_wrap_k5() -> None:
    compiled, _ = compile_card(card("A-1 X 25 : FF X0X1X2a X0X1X2b XXXX2c NE"))
    assert compiled is not None
    starts = {min(t % 9 for t in e.tiles() if t < 27) + 1 for e in compiled.expansions}
    assert starts == set(range(1, 8))  # a run of three starts no higher than 7


def test_quint_of_naturals_only_is_impossible_s5() -> None:
    # Only four naturals exist: a naturals-only quint has no expansion (L5).
    assert [c for _, _, c in errors(card("A-1 X 25 : 11111a! 2222b 3333c 5a"))] == ["L5"]


def test_cache_is_reused_and_keyed_by_content(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = tmp_path / "c.card"
    path.write_text(card("A-1 X 25 : 1111a 2222a 3333a 44a"))
    first = load_card(path)
    assert len(list((tmp_path / "mahjong-table").glob("card-*.data"))) == 1
    assert load_card(path) == first
    path.write_text(card("A-1 X 30 : 1111a 2222a 3333a 44a"))
    assert load_card(path).lines[0].points == 30
    assert len(list((tmp_path / "mahjong-table").glob("card-*.data"))) == 2


def test_a_broken_cache_file_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = tmp_path / "c.card"
    path.write_text(card("A-1 X 25 : 1111a 2222a 3333a 44a"))
    load_card(path)
    [cached] = (tmp_path / "mahjong-table").glob("card-*.data")
    cached.write_bytes(b"not a card")
    assert load_card(path).lines[0].id == "A-1"


SYMBOLS = "0123456789NEWSFRGDZUXYVabc@BCD*!+=| ;:~{},.-\"x"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=SYMBOLS, max_size=60), st.text(max_size=40))
def test_any_text_gives_problems_never_a_crash(line: str, noise: str) -> None:
    text = card(f"A-1 X 25 : {line}", noise)
    compiled, problems = compile_card(text)
    assert compiled is not None or any(p.severity == "error" for p in problems)
    for p in problems:
        assert p.line >= 1 and p.column >= 1 and p.code and p.message


def test_a_line_with_absurdly_many_combinations_is_refused() -> None:
    many = "D* " * 12 + "FF"
    assert [c for _, _, c in errors(card(f"A-1 X 25 : {many}"))] == ["L10"]


def test_every_card_line_shown_in_the_docs_lints_clean() -> None:
    """docs/cards.md teaches by example: each example line must be a valid line."""
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "cards.md").read_text()
    shown = [line for block in re.findall(r"```\n(.*?)```", doc, flags=re.S)
             for line in block.splitlines() if re.match(r"[A-Z][A-Z0-9]*-\d+ [XC] \d+ :", line)]
    assert len(shown) >= 8
    for i, line in enumerate(shown):
        compiled, problems = compile_card(card(line.replace(line.split()[0], f"DOC-{i}", 1)))
        assert compiled is not None, (line, [str(p) for p in problems])
