"""`reportgen email` under faults and hostile input (issue 32): attachments never read
through a link nor different from what the manifest records; one total SMTP deadline
(a real server on 127.0.0.1 that trickles its greeting); names that cannot forge lines.

The references are the bytes on disk (``hashlib``), a real socket server, and the
message parsed back by the standard library's ``email`` parser.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reportgen.report.mail import MailError, build_message, read_report_folder

ADDRESSES = {"sender": "Eval Bot <bot@example.org>", "to": ["ana@example.org"]}


@pytest.fixture()
def folder(example_releases, tmp_path) -> Path:
    copy = tmp_path / "report"
    shutil.copytree(example_releases["v10.0"], copy)  # has report.html and report.pdf
    return copy


def test_email_refuses_an_attachment_that_is_a_link(folder, tmp_path):
    secret = tmp_path / "id_ed25519"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (folder / "report.pdf").unlink()
    (folder / "report.pdf").symlink_to(secret)
    with pytest.raises(MailError, match=r"report\.pdf is a symbolic link.*never attached"):
        build_message(read_report_folder(folder), **ADDRESSES, charts=False)


def test_email_refuses_an_attachment_that_differs_from_the_manifest(folder):
    (folder / "report.html").write_text("<p>something else</p>")
    with pytest.raises(MailError, match=r"report\.html differs from the file reportgen wrote"):
        build_message(read_report_folder(folder), **ADDRESSES, charts=False)


def test_email_of_an_intact_folder_attaches_exactly_the_files_on_disk(folder):
    msg = build_message(read_report_folder(folder), **ADDRESSES, charts=False)
    attached = {part.get_filename(): part.get_content() for part in msg.iter_attachments()}
    pdf = next(v for k, v in attached.items() if k.endswith(".pdf"))
    assert pdf == (folder / "report.pdf").read_bytes()


# ---------------------------------------------------------------- the SMTP deadline


def _trickler(stop: threading.Event) -> tuple[socket.socket, threading.Thread]:
    """A server that greets with an endless multi-line 220 reply, a line every 0.2 s:
    every single read succeeds well within any per-read timeout."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            while not stop.is_set():
                try:
                    conn.sendall(b"220-still greeting\r\n")
                except OSError:
                    return
                time.sleep(0.2)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


def test_email_timeout_is_one_total_deadline_against_a_trickling_server(example_releases, tmp_path):
    stop = threading.Event()
    listener, thread = _trickler(stop)
    env = {**os.environ, "HOME": str(tmp_path)}
    for name in ("REPORTGEN_SMTP_USER", "REPORTGEN_SMTP_PASSWORD", "NETRC"):
        env.pop(name, None)
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "reportgen",
                "email",
                str(example_releases["v9.1"]),
                "--to",
                "ana@example.org",
                "--from",
                "bot@example.org",
                "--smtp-host",
                "127.0.0.1",
                "--smtp-port",
                str(listener.getsockname()[1]),
                "--timeout",
                "1.5",
                "--no-charts",
                "--no-attach",
                "--quiet",
            ],
            capture_output=True,
            text=True,
            timeout=60,  # today's per-read timeout waits forever: this bound fails it
            env=env,
        )
    finally:
        stop.set()
        listener.close()
    elapsed = time.monotonic() - started
    assert proc.returncode == 2, proc.stderr
    assert "no answer within 1.5 s" in proc.stderr and "Traceback" not in proc.stderr
    assert elapsed < 30  # interpreter start and imports, plus the 1.5 s
    thread.join(timeout=5)


def _trickler_after_starttls(stop: threading.Event, server_ctx) -> socket.socket:
    """A server that offers STARTTLS, completes the TLS handshake, then answers the
    second EHLO with an endless multi-line 250 reply, a line every 0.2 s."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        try:
            conn.sendall(b"220 localhost ESMTP\r\n")
            reader = conn.makefile("rb")
            reader.readline()  # EHLO
            conn.sendall(b"250-localhost\r\n250 STARTTLS\r\n")
            reader.readline()  # STARTTLS
            conn.sendall(b"220 go ahead\r\n")
            tls = server_ctx.wrap_socket(conn, server_side=True)
            tls.recv(1024)  # EHLO again
            while not stop.is_set():
                tls.sendall(b"250-still thinking\r\n")
                time.sleep(0.2)
        except OSError:
            return
        finally:
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return listener


def test_email_deadline_holds_after_starttls(example_releases, tmp_path):
    import ssl

    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_ctx)
    cafile = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(cafile))
    stop = threading.Event()
    listener = _trickler_after_starttls(stop, server_ctx)
    env = {**os.environ, "HOME": str(tmp_path)}
    for name in ("REPORTGEN_SMTP_USER", "REPORTGEN_SMTP_PASSWORD", "NETRC"):
        env.pop(name, None)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "reportgen", "email", str(example_releases["v9.1"])]
            + ["--to", "ana@example.org", "--from", "bot@example.org"]
            + ["--smtp-host", "127.0.0.1", "--smtp-port", str(listener.getsockname()[1])]
            + ["--starttls", "--cafile", str(cafile), "--timeout", "2"]
            + ["--no-charts", "--no-attach", "--quiet"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
    finally:
        stop.set()
        listener.close()
    assert proc.returncode == 2, proc.stderr
    assert "no answer within 2 s" in proc.stderr and "Traceback" not in proc.stderr


def test_email_never_reads_a_results_json_through_a_link(folder, tmp_path, capsys):
    from reportgen.cli import main

    elsewhere = tmp_path / "other-results.json"
    os.replace(folder / "results.json", elsewhere)
    (folder / "results.json").symlink_to(elsewhere)
    status = main(
        ["email", str(folder), "--to", "a@example.org", "--from", "b@example.org"]
        + ["--eml", str(tmp_path / "m.eml"), "--no-attach", "--no-charts"]
    )
    err = capsys.readouterr().err
    assert status == 2 and "a link is never followed" in err and "Traceback" not in err
    assert not (tmp_path / "m.eml").exists()
