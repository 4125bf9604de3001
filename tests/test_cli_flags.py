"""Every command's flags are declared in reportgen.config (OPTIONS and COMMAND_FLAGS);
the CLI builds its parsers from them and declares nothing itself."""

from __future__ import annotations

import argparse

import pytest

from reportgen import config as declared
from reportgen.cli import build_parser, main


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_flag_of_every_command_is_declared_in_config() -> None:
    declared_strings = {o.flag for o in declared.OPTIONS if o.flag} | {
        name for flags in declared.COMMAND_FLAGS.values() for f in flags for name in f.names
    }
    declared_dests = {
        f.dest or f.names[0] for flags in declared.COMMAND_FLAGS.values() for f in flags
    }
    commands = _commands()
    assert set(commands) >= {"inspect", "analyze", "compare", "run", "verify", "history"}
    for name, parser in commands.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if action.option_strings:
                undeclared = [s for s in action.option_strings if s not in declared_strings]
                # the data readers' --format is --input-format in `run` (declared remapping)
                undeclared = [s for s in undeclared if s != "--input-format"]
                assert not undeclared, f"reportgen {name}: {undeclared} not in reportgen.config"
            else:
                assert action.dest in declared_dests, f"reportgen {name}: {action.dest}"


def test_command_flags_keep_their_meaning() -> None:
    commands = _commands()
    email = commands["email"].parse_args(
        ["folder", "--to", "a@x.org", "--to", "b@x.org", "--from", "c@x.org", "--ssl"]
    )
    assert email.to == ["a@x.org", "b@x.org"] and email.sender == "c@x.org"
    assert email.security == "ssl" and email.cc == [] and email.timeout == 30.0
    given = commands["email"].parse_args(["f", "--to", "a", "--from", "c", "--cc", "d"])
    again = commands["email"].parse_args(["folder", "--to", "a@x.org", "--from", "c@x.org"])
    assert given.cc == ["d"] and again.cc == []  # appending never changes the default
    with pytest.raises(SystemExit):
        commands["email"].parse_args(["f", "--to", "a", "--from", "c", "--ssl", "--starttls"])
    history = commands["history"].parse_args(["a", "b", "--system", "m", "--system", "v2=n"])
    assert history.follow == ["m", "v2=n"] and history.order == "auto"
    power = commands["power"].parse_args(["--design", "paired-binary", "--n", "200"])
    assert power.n == 200.0 and power.target_power == 0.8 and power.accuracy_b is None


def test_power_baseline_is_a_deprecated_alias_of_accuracy_b(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["power", "--design", "paired-binary", "--n", "200", "--discordance", "0.2"]
    assert main([*args, "--accuracy-b", "0.7"]) == 0
    new = capsys.readouterr()
    assert main([*args, "--baseline", "0.7"]) == 0
    old = capsys.readouterr()
    assert old.out == new.out  # the same answer
    assert "--baseline is deprecated" in old.err and "use --accuracy-b" in old.err
    assert "deprecated" not in new.err
    helptext = _commands()["power"].format_help()
    assert "--accuracy-b" in helptext and "--baseline" not in helptext
