"""Table configuration: the schema, its error messages, and `mjtable config check`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from config.load import ConfigError, bundled_config, bundled_path, load_config
from controller import cli


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


def test_bundled_files_are_valid() -> None:
    pi = load_config(bundled_path("table.toml"))
    assert pi.table.id == "table-01" and pi.board.serial == "/dev/mahjong-mcu"
    assert [s.name for s in pi.leds.segments] == [
        "seat-E", "seat-S", "seat-W", "seat-N", "centre", "wall"
    ]
    sim = bundled_config("simulate.toml")
    assert sim.table.id == "sim" and sim.board.serial == "emulated"


def test_smallest_file_takes_documented_defaults(tmp_path: Path) -> None:
    cfg = load_config(_write(tmp_path, '[table]\nid = "t7"\n'))
    assert cfg.table.ruleset == "code1924/mixed"
    assert cfg.adjudication.courtesy_pause_ms == 1500
    assert cfg.mqtt.port == 1883 and cfg.mqtt.topic_prefix == "mahjong/v1"
    assert cfg.player("E") == "E"


def test_errors_name_file_key_path_and_expectation(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '[table]\nid = "t7"\nruleset = "riichi"\n[mqtt]\nport = 70000\nhots = "x"\n',
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    found = {p.key: p.message for p in info.value.problems}
    assert set(found) == {"table.ruleset", "mqtt.port", "mqtt.hots"}
    assert "code1924/mixed" in found["table.ruleset"]  # lists what was expected
    assert "65536" in found["mqtt.port"]
    assert "unknown key" in found["mqtt.hots"]
    assert all(p.file == str(path) for p in info.value.problems)


def test_the_cameras_margin_around_a_hand_is_a_setting(tmp_path: Path) -> None:
    from vision.observe import TableWatcher

    cfg = load_config(_write(tmp_path, '[table]\nid = "t7"\n'))
    assert cfg.camera.hidden_margin_mm == TableWatcher().hidden_margin_mm  # documented 40 mm
    wide = load_config(_write(tmp_path, '[table]\nid = "t7"\n[camera]\nhidden_margin_mm = 900\n'))
    assert wide.camera.hidden_margin_mm == 900
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, '[table]\nid = "t7"\n[camera]\nhidden_margin_mm = -5\n'))
    (problem,) = info.value.problems
    assert problem.key == "camera.hidden_margin_mm" and "0" in problem.message


def test_the_cameras_frame_size_is_a_setting(tmp_path: Path) -> None:
    from vision.capture import DEFAULT_FRAME_SIZE

    cfg = load_config(_write(tmp_path, '[table]\nid = "t7"\n'))
    assert (cfg.camera.width, cfg.camera.height) == DEFAULT_FRAME_SIZE
    # The bundled Pi table asks its camera for more pixels on each tile (docs/vision.md).
    pi = load_config(bundled_path("table.toml"))
    assert (pi.camera.width, pi.camera.height) == (2304, 1296)
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, '[table]\nid = "t7"\n[camera]\nwidth = 100\nheight = 0\n'))
    found = {p.key: p.message for p in info.value.problems}
    assert set(found) == {"camera.width", "camera.height"}
    assert "320" in found["camera.width"] and "240" in found["camera.height"]


def test_missing_table_id_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, "[table]\n"))
    assert info.value.problems[0].key == "table.id"
    assert info.value.problems[0].message == "required key is missing"


def test_table_id_must_be_a_topic_level(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"table\.id: expected 1-64 letters"):
        load_config(_write(tmp_path, '[table]\nid = "club/7"\n'))


def test_gpio_pin_used_twice_is_refused(tmp_path: Path) -> None:
    text = (
        '[table]\nid = "t"\n[gpio]\nenabled = true\n'
        "[gpio.seats.E]\nbuttons = {pung = 5}\nled = 6\n"
        "[gpio.seats.S]\nbuttons = {pung = 6}\n"
    )
    with pytest.raises(ConfigError, match=r"GPIO 6 is already used by seats\.E\.led"):
        load_config(_write(tmp_path, text))


def test_overlapping_led_segments_are_refused(tmp_path: Path) -> None:
    text = (
        '[table]\nid = "t"\n[leds]\nsegments = [{name = "a", start = 0, count = 10},'
        ' {name = "b", start = 5, count = 4}]\n'
    )
    with pytest.raises(ConfigError, match="'b' overlaps segment 'a'"):
        load_config(_write(tmp_path, text))


def test_bad_toml_names_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not valid TOML: .*line 2"):
        load_config(_write(tmp_path, '[table]\nid = \n'))


def test_config_check_prints_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The Pi's table file names the password file the install writes; here, one of ours.
    password = tmp_path / "mqtt-password"
    password.write_text("secret\n")
    text = bundled_path("table.toml").read_text().replace(
        "/etc/mahjong-table/mqtt-password", str(password))
    assert cli.main(["config", "check", str(_write(tmp_path, text))]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["table"] == "table-01"


def test_config_check_bad_file_exits_2_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, '[table]\nid = "t"\n[mqtt]\nport = "x"\nkeepalive = 1\n')
    assert cli.main(["config", "check", str(path)]) == 2
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["where"] == f"{path}: mqtt.port"
    assert "and 1 more" in out["error"]
    assert "mqtt.keepalive" in captured.err  # the other problem is listed too


def test_config_check_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["config", "check", "/nonexistent/table.toml"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out == {"error": "cannot read: No such file or directory",
                   "where": "/nonexistent/table.toml"}


def test_run_refuses_an_american_table_whose_card_does_not_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = tmp_path / "no-such-card.card"
    path = _write(tmp_path, f'[table]\nid = "t"\nruleset = "american"\ncard = "{card}"\n'
                  '[mqtt]\nenabled = false\n')
    assert load_config(path).table.card == str(card)  # a valid file, served live ...
    assert cli.main(["run", "--config", str(path)]) == 2  # ... but not without its card
    out = json.loads(capsys.readouterr().out)
    assert out["where"] == f"{path}: table.card" and "does not load" in out["error"]
    assert cli.main(["config", "check", str(path)]) == 2  # and the check says so first
    out = json.loads(capsys.readouterr().out)
    assert out["where"] == f"{path}: table.card" and "does not load" in out["error"]


def test_every_ruleset_and_preset_of_the_registry_is_a_table_ruleset(tmp_path: Path) -> None:
    from engine.rulesets import names

    for name in names():
        cfg = load_config(_write(tmp_path, f'[table]\nid = "t"\nruleset = "{name}"\n'))
        assert cfg.table.ruleset == name
    dmjl = load_config(_write(tmp_path, '[table]\nid = "t"\nruleset = "classical/dmjl"\n'))
    assert (dmjl.table.plays, dmjl.table.scores) == ("classical", "classical/dmjl")


@pytest.mark.parametrize(
    ("table", "where", "message"),
    [
        ('ruleset = "bridge"', "table.ruleset", "unknown ruleset 'bridge' (known: code1924/mixed"),
        ('ruleset = "pungchow"\nscoring = "classical/dmjl"', "table",
         "scoring: classical/dmjl does not score pungchow's hands; one of pungchow"),
        ('ruleset = "pungchow"\ncard = "my.card"', "table",
         "card: pungchow is not played from a card (only american)"),
        ('ruleset = "code1924/mixed"\noptions = { limit = "lots" }', "table",
         "options.limit: expected a whole number >= 0"),
        ('ruleset = "pungchow"\noptions = { seven_twins_qualifies = true }', "table",
         "options.seven_twins_qualifies: unknown option for pungchow; known: "),
        ('ruleset = "american"\noptions = { limit = 500 }', "table",
         "options.limit: american takes no table options"),
    ],
    ids=["unknown", "preset-of-another", "card-not-american", "bad-value", "unknown-option",
         "american-options"],
)
def test_config_check_refuses_what_the_ruleset_does_not_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str, where: str, message: str
) -> None:
    path = _write(tmp_path, f'[table]\nid = "t"\n{table}\n')
    assert cli.main(["config", "check", str(path)]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["where"] == f"{path}: {where}"
    assert out["error"].startswith(message), out["error"]


def test_a_scoring_preset_plays_as_its_family_and_scores_with_the_preset(
    tmp_path: Path,
) -> None:
    from controller.service import settings_of

    cfg = load_config(_write(tmp_path, '[table]\nid = "t"\nruleset = "classical/bmja"\n'))
    settings = settings_of(cfg)
    assert (settings.ruleset, settings.scoring) == ("classical", "classical/bmja")
    plain = settings_of(load_config(_write(tmp_path, '[table]\nid = "t"\nruleset = "classical"\n')))
    assert (plain.ruleset, plain.scoring) == ("classical", "")
