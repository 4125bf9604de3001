"""Leftovers and messages (issue 44, item 6): Ctrl-C at any stage of a run leaves no
temporary file (the kernel's connection file included) and no traceback, and is never
lost in a finalizer; ``--eml`` refuses a file that exists unless ``--force``; the SMTP
deadline holds within a second, name lookups included; ``--force`` over a report it
could not remove entirely refuses before any work, or names what it kept and why.

The references are the operating system (exit statuses, the files in TMPDIR and beside
the report, the bytes of the old report), a real SMTP-speaking socket on 127.0.0.1, and
the clock.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.report.folder import archive
from reportgen.report.folder.archive import report_folder


@pytest.fixture(scope="module")
def scores(tmp_path_factory, scores_csv) -> Path:
    return scores_csv(
        tmp_path_factory.mktemp("scores"), seed=6, systems=("a", "b", "c"), n_items=50
    )


# ------------------------------------------------------------------ Ctrl-C


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("after", "delay"),
    [("cell 3/", 0.5), ("cell 9/", 0.0), ("rendering the PDF", 0.3)],
    ids=["analysis", "charts", "pdf"],
)
def test_ctrl_c_at_any_stage_leaves_nothing(scores, tmp_path, after, delay, file_digests):
    # Ctrl-C in a terminal signals the whole process group: the command, the notebook's
    # kernel and the chart workers. Before: a kernel connection file tmpXXXX.json left
    # in TMPDIR, asyncio's "Task exception was never retrieved" with the kernel's
    # traceback, and a Ctrl-C lost in a finalizer (exit 0, the report written)
    out = tmp_path / "rep"
    argv = [sys.executable, "-m", "reportgen", "run", str(scores), "--out", str(out)]
    argv += ["--format", "html,pdf", "--n-resamples", "99", "--seed", "1"]
    assert main([*argv[3:], "--quiet"]) == 0
    before = file_digests(out)
    scratch = tmp_path.parent / f"{tmp_path.name}-tmp"
    scratch.mkdir()
    proc = subprocess.Popen(
        [*argv, "--force"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
        start_new_session=True,  # its own process group, signalled as a terminal does
    )
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if after in line:
            time.sleep(delay)
            os.killpg(proc.pid, signal.SIGINT)
            break
    rest = proc.stderr.read()
    status = proc.wait(timeout=300)
    stderr = "".join(lines) + rest
    assert status == 130, stderr
    for noise in ("Traceback", "Exception ignored", "Task exception", "KeyboardInterrupt"):
        assert noise not in stderr, stderr
    assert rest.strip().endswith("reportgen: interrupted"), stderr
    time.sleep(1.0)
    assert sorted(p.name for p in scratch.rglob("*")) == []
    assert file_digests(out) == before  # the old report, untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no .failed.ipynb


def test_a_ctrl_c_lost_in_a_finalizer_still_stops_the_run(monkeypatch, capsys):
    # Python ignores an exception raised in a finalizer ("Exception ignored in ..."):
    # the SIGINT handler remembers it, the next progress line stops the run, and the
    # unraisable hook keeps the ignored one's traceback off stderr
    import reportgen.cli as cli

    def command(args):
        say = cli._progress_printer(quiet=True)

        class Finalized:
            def __del__(self):
                os.kill(os.getpid(), signal.SIGINT)  # lands while the finalizer runs
                time.sleep(0.1)

        Finalized()  # collected at once: the KeyboardInterrupt is ignored
        say("rendering the PDF")
        return 0

    monkeypatch.setattr(cli, "_cmd_inspect", command)
    assert cli.main(["inspect", "x.csv"]) == cli.EXIT_INTERRUPTED
    err = capsys.readouterr().err
    assert err == "reportgen: interrupted\n"


def test_the_kernel_connection_file_is_in_its_private_folder():
    from reportgen.report.pipeline import _ipc_kernel_manager

    manager = _ipc_kernel_manager()()
    folder = manager._ipc_folder
    assert Path(manager.connection_file).parent == folder
    assert folder.name.startswith("reportgen-kernel-")


# ------------------------------------------------------------------ --eml


def test_eml_refuses_an_existing_file_unless_force(scores, tmp_path, capsys):
    folder = tmp_path / "r"
    assert main(["analyze", str(scores), "--out", str(folder), "--n-resamples", "99"]) == 0
    eml = tmp_path / "report.eml"
    eml.write_text("someone's draft")
    argv = ["email", str(folder), "--to", "a@example.org", "--from", "b@example.org"]
    argv += ["--eml", str(eml), "--no-attach", "--no-charts", "--quiet"]
    capsys.readouterr()
    # before: overwritten without a word
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"{eml}: the --eml file exists; it was left as it was" in err
    assert "--force" in err and eml.read_text() == "someone's draft"
    assert main([*argv, "--force"]) == 0
    assert b"Subject: " in eml.read_bytes() and b"someone's draft" not in eml.read_bytes()
    # a link is never written through, even with --force
    link = tmp_path / "link.eml"
    link.symlink_to(tmp_path / "elsewhere.eml")
    assert main([*argv[:-5], "--eml", str(link), "--no-attach", "--no-charts", "--force"]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert not (tmp_path / "elsewhere.eml").exists()


def test_eml_under_a_file_size_limit_leaves_nothing(scores, tmp_path):
    # before: a traceback-free error, but the temporary .report.eml.XXXX stayed beside it
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        pytest.skip("prlimit (util-linux) is not installed: no file-size limit to set")
    folder = tmp_path / "r"
    assert main(["analyze", str(scores), "--out", str(folder), "--n-resamples", "99"]) == 0
    proc = subprocess.run(
        [prlimit, "--fsize=3000", sys.executable, "-m", "reportgen", "email", str(folder)]
        + ["--to", "a@example.org", "--from", "b@example.org", "--eml", str(tmp_path / "m.eml")]
        + ["--no-attach", "--no-charts", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "cannot write the message: file too large" in proc.stderr
    assert "nothing was written" in proc.stderr and "--eml" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


# ------------------------------------------------------------------ SMTP deadline


def _message() -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "b@example.org", "a@example.org", "x"
    msg.set_content("hi")
    return msg


def _trickler() -> tuple[socket.socket, list[float], threading.Event]:
    """A server on 127.0.0.1 that greets with an endless multi-line reply, a line every
    0.2 s; it records when it accepted and when the client closed."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    times: list[float] = []
    stop = threading.Event()

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        times.append(time.monotonic())
        with conn:
            while not stop.is_set():
                try:
                    conn.sendall(b"220-still greeting\r\n")
                except OSError:
                    break
                time.sleep(0.2)
        times.append(time.monotonic())

    threading.Thread(target=serve, daemon=True).start()
    return listener, times, stop


def test_smtp_deadline_holds_within_a_second_against_a_trickling_server():
    from reportgen.report.mail.smtp import MailError, send_message, smtp_settings

    listener, times, stop = _trickler()
    settings = smtp_settings(host="127.0.0.1", port=listener.getsockname()[1], timeout=2)
    started = time.monotonic()
    try:
        with pytest.raises(MailError, match="no answer within 2 s"):
            send_message(_message(), settings)
        elapsed = time.monotonic() - started
        time.sleep(0.5)
    finally:
        stop.set()
        listener.close()
    assert elapsed < 2 + 1.0
    assert len(times) == 2 and times[1] - times[0] < 2 + 1.0  # the server saw it close


def test_smtp_deadline_bounds_the_name_lookups(monkeypatch):
    # before: socket.getfqdn (smtplib's EHLO name) and the host's lookup ran outside the
    # deadline: a resolver that does not answer kept `--timeout 3` waiting 18 s
    from reportgen.report.mail import smtp as smtp_module
    from reportgen.report.mail.smtp import MailError, send_message, smtp_settings

    real = socket.getaddrinfo

    def slow_resolver(host, *args, **kwargs):
        if host == "mail.example.org":
            time.sleep(30)
        return real(host, *args, **kwargs)

    def slow_fqdn(*args):
        time.sleep(30)
        return "never"

    monkeypatch.setattr(smtp_module.socket, "getaddrinfo", slow_resolver)
    monkeypatch.setattr(smtp_module.socket, "getfqdn", slow_fqdn)
    started = time.monotonic()
    with pytest.raises(MailError, match="no answer within 2 s"):
        send_message(_message(), smtp_settings(host="mail.example.org", port=25, timeout=2))
    assert time.monotonic() - started < 2 + 1.0
    # a host that resolves, and a server that answers: the EHLO name needs no DNS
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    said: list[bytes] = []

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            reader = conn.makefile("rb")
            conn.sendall(b"220 ok\r\n")
            said.append(reader.readline())
            conn.sendall(b"250 ok\r\n")
            for line in iter(reader.readline, b""):
                said.append(line)
                if line.upper().startswith(b"DATA"):
                    conn.sendall(b"354 go\r\n")
                    while reader.readline() not in (b".\r\n", b""):
                        pass
                quit_ = line.upper().startswith(b"QUIT")
                conn.sendall(b"221 bye\r\n" if quit_ else b"250 ok\r\n")

    threading.Thread(target=serve, daemon=True).start()
    started = time.monotonic()
    sent = send_message(
        _message(), smtp_settings(host="127.0.0.1", port=listener.getsockname()[1], timeout=5)
    )
    listener.close()
    assert sent == ["a@example.org"] and time.monotonic() - started < 5
    # the host name when it is a domain name, else this end's address literal
    hello = socket.gethostname() if "." in socket.gethostname() else "[127.0.0.1]"
    assert said[0] == f"ehlo {hello}\r\n".encode()


# ------------------------------------------------------------------ --force


def test_force_over_a_report_it_cannot_remove_refuses_before_any_work(
    scores, tmp_path, unprivileged, file_digests, write_report
):
    # before: exit 0, "files that reportgen did not write appeared", and rep.kept-*
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "old", "tables/a.csv": "a"})
    before = file_digests(out)
    (out / "tables").chmod(0o555)
    try:
        proc = subprocess.run(
            unprivileged(
                [sys.executable, "-m", "reportgen", "analyze", str(scores), "--out", str(out)]
                + ["--force", "--n-resamples", "99"]
            ),
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        (out / "tables").chmod(0o755)
    assert proc.returncode == 2, proc.stderr
    assert "the report folder cannot be replaced: its folder tables/ is not writable" in (
        proc.stderr
    )
    assert "chmod u+w" in proc.stderr and "Traceback" not in proc.stderr
    assert file_digests(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_force_names_what_it_kept_and_why(tmp_path, monkeypatch, write_report):
    # a file that cannot be deleted after the checks (a race, an immutable file): the
    # new report is in place and the warning says which file was kept, where and why
    out = tmp_path / "r"
    out.mkdir()
    write_report(out, {"results.json": "old", "tables/a.csv": "a", "tables/b.csv": "b"})
    real = os.unlink

    def refuse(name, *args, **kwargs):
        if name == "a.csv":
            raise PermissionError(1, "Operation not permitted", name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(archive.os, "unlink", refuse)
    with pytest.warns(archive.LeftoverWarning) as warned:
        with report_folder(out, force=True) as work:
            write_report(work, {"results.json": "new"})
    monkeypatch.undo()
    message = str(warned[0].message)
    (kept,) = [p for p in tmp_path.iterdir() if p.name.startswith("r.kept-")]
    assert f"files of the old one were kept in {kept}" in message
    assert "tables/a.csv: it could not be deleted (operation not permitted)" in message
    assert "appeared" not in message
    assert (out / "results.json").read_text() == "new"
    assert sorted(p.relative_to(kept).as_posix() for p in kept.rglob("*") if p.is_file()) == [
        "tables/a.csv"
    ]
