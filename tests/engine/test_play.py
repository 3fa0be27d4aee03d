"""``python -m engine.play``: the README's way to watch a game without Discord (issue 26, 17)."""

from __future__ import annotations

import pytest

from engine.play import main


def _table(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[str], list[list[int]]]:
    assert main([*args, "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if "routes" in line)
    rows = [[int(v) for v in line.split()[2:]] for line in lines[at + 1:]
            if line[:1].isdigit()]
    return lines[at].split(), rows


def test_computer_players_play_it_and_complete_tickets(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """The bot's computer players, not random moves: everyone completes tickets and scores
    well above zero (random moves fail nearly every ticket)."""
    heading, rows = _table(capsys, "--map", "usa", "--players", "3", "--seed", "4")
    assert heading == ["routes", "tickets", "done", "path", "bonus", "total"]
    assert len(rows) == 3
    for routes, tickets, done, _path, _bonus, total in rows:
        assert done >= 1 and tickets > 0 and total > routes > 0


def test_the_stations_column_is_there_only_on_maps_with_stations(
        capsys: pytest.CaptureFixture[str]) -> None:
    heading, rows = _table(capsys, "--map", "europe", "--players", "2", "--seed", "3")
    assert "stations" in heading and all(len(r) == len(heading) for r in rows)
    heading, _rows = _table(capsys, "--map", "nordic", "--players", "2", "--seed", "3",
                            "--level", "random")
    assert "stations" not in heading
