"""textdp.cli: the command package's wiring and the argument types shared by its commands
(textdp/cli/args.py). The commands themselves are tested in test_cli.py and beside their
library modules."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from textdp.cli import build_parser, main
from textdp.cli.args import clip_norm_arg, epsilon_or_auto_arg, exclude_arg, mechanism_arg

COMMANDS = ["privatize", "mechanisms", "evaluate", "detect", "calibrate", "release-table",
            "train-detector", "train-embeddings", "build-index", "bench"]
EVALUATIONS = ["detection", "privacy", "utility", "ner-utility", "pseudonyms", "name-kinds",
               "polarized", "samples", "pii", "quasi"]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


# ---------------------------------------------------------------- wiring
def test_every_command_is_a_module_of_the_cli_package_with_its_run():
    commands = _subcommands(build_parser())
    assert list(commands) == COMMANDS
    evaluations = _subcommands(commands.pop("evaluate"))
    assert list(evaluations) == EVALUATIONS
    for name, parser in {**commands, **evaluations}.items():
        handler = parser.get_default("handler")
        assert handler.__name__ == "run", name
        assert handler.__module__.startswith("textdp.cli."), (name, handler.__module__)


def test_a_command_run_builds_its_own_parser_only(capsys):
    """A known command imports only its own module; anything else gets every command."""
    assert list(_subcommands(build_parser("privatize"))) == ["privatize"]
    assert list(_subcommands(build_parser("privatiz"))) == COMMANDS
    assert list(_subcommands(build_parser(None))) == COMMANDS
    with pytest.raises(SystemExit) as exit_:
        main(["privatiz", "x.jsonl"])
    assert exit_.value.code == 2
    assert "choose from 'privatize', 'mechanisms'" in capsys.readouterr().err


def test_python_dash_m_textdp_is_the_command():
    for module in ("textdp", "textdp.cli"):
        out = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0 and out.stdout.startswith("textdp "), out.stderr


# ---------------------------------------------------------------- argument types
def test_mechanism_arg():
    assert mechanism_arg(" mahalanobis ") == "mahalanobis"
    assert mechanism_arg('{"name": "nadp", "tau": 0.3}') == {"name": "nadp", "tau": 0.3}
    with pytest.raises(argparse.ArgumentTypeError, match="JSON does not parse"):
        mechanism_arg('{"name": nadp}')


def test_a_malformed_mechanism_is_refused_naming_the_option(capsys):
    for command in (["calibrate"], ["release-table", "--epsilon", "1", "-o", "x.vec"],
                    ["privatize", "never-read.jsonl"]):
        with pytest.raises(SystemExit) as exit_:
            main([*command, "--mechanism", "{oops"])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "argument --mechanism" in err and "JSON does not parse" in err, command


def test_epsilon_or_auto_arg():
    assert epsilon_or_auto_arg("0.5") == 0.5
    assert epsilon_or_auto_arg(" AUTO ") == "auto"
    with pytest.raises(argparse.ArgumentTypeError, match="a number or 'auto'"):
        epsilon_or_auto_arg("lots")


def test_clip_norm_arg(capsys):
    assert clip_norm_arg("median") == "median"
    assert clip_norm_arg("None") is None
    assert clip_norm_arg("2.5") == 2.5
    with pytest.raises(argparse.ArgumentTypeError, match="clip_norm must be 'median', 'none'"):
        clip_norm_arg("mean")
    with pytest.raises(SystemExit):
        main(["calibrate", "--clip-norm", "mean"])
    assert "argument --clip-norm" in capsys.readouterr().err


def test_exclude_arg(tmp_path):
    assert exclude_arg("default") == "default"
    assert exclude_arg("none") is None
    assert exclude_arg("foo, bar") == ("foo", "bar")
    words = tmp_path / "words.txt"
    words.write_text("foo\nbar baz\n", encoding="utf-8")
    assert exclude_arg(f"@{words}") == ("foo", "bar baz")


# ---------------------------------------------------------------- ε grids of the evaluations
@pytest.mark.parametrize("what, extra", [
    ("privacy", ["--table", "/nonexistent/table.vec"]),
    ("utility", ["--data", "/nonexistent/data"]),
])
@pytest.mark.parametrize("grid, message", [
    (["tem:1"], "epsilon is given for tem, which is not among the mechanisms mlaplace"),
    (["1,x"], "epsilon must be comma-separated numbers > 0"),
    (["1", "2"], "epsilon is given twice for every mechanism"),
    (["mlaplace=0"], "epsilon must be a finite number > 0"),
])
def test_both_evaluations_refuse_a_bad_grid_alike_before_any_work(what, extra, grid, message,
                                                                  tmp_path, capsys):
    argv = ["evaluate", what, "--mechanism", "mlaplace", *extra, "-o", str(tmp_path / "r")]
    for value in grid:
        argv += ["--epsilon", value]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"textdp: error: {message}" in err
    assert not (tmp_path / "r").exists()


def test_the_grid_option_reads_entries_and_semicolons():
    for what in ("privacy", "utility"):
        args = build_parser().parse_args(["evaluate", what, "--data", "d", "--epsilon", "1,2",
                                          "--epsilon", "nadp:5;mlaplace=3"])
        assert args.epsilon == ["1,2", "nadp:5;mlaplace=3"]
