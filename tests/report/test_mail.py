"""`reportgen email`: the message (parts, Content-ID images, attachments, text
alternative, size and self-containment of the HTML body) and its delivery to a real SMTP
server on 127.0.0.1 (aiosmtpd): plain, STARTTLS with AUTH, implicit TLS, and the
failures (refused connection, timeout, bad credentials, refused recipient, untrusted
certificate, size limit) that must exit with status 2 and a clear message."""

from __future__ import annotations

import json
import re
import socket
import ssl
import threading
from email import policy
from email.parser import BytesParser
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.report.mail import (
    MAX_HTML_BYTES,
    MailError,
    build_message,
    read_report_folder,
    smtp_settings,
)

aiosmtpd = pytest.importorskip("aiosmtpd")
trustme = pytest.importorskip("trustme")

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER, PASSWORD = "release-bot", "s3cret-pass"


# ------------------------------------------------------------------ helpers


class _Links(HTMLParser):
    """Every URL-bearing attribute, every tag name, and <style> elements."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.tags: list[str] = []
        self.images: list[dict[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        for key in ("src", "href", "background", "action", "srcset", "poster"):
            if attrs.get(key):
                self.urls.append(attrs[key])
        if tag == "img":
            self.images.append(attrs)


def _parse(raw: bytes):
    return BytesParser(policy=policy.default).parsebytes(raw)


def _tree(msg) -> list[tuple[int, str]]:
    out = []

    def walk(part, depth):
        out.append((depth, part.get_content_type()))
        if part.is_multipart():
            for sub in part.iter_parts():
                walk(sub, depth + 1)

    walk(msg, 0)
    return out


def _check_message(msg, folder: Path, *, attached: bool = True) -> str:
    """The checks of the issue on a parsed message; returns the HTML body."""
    tree = _tree(msg)
    assert tree[0] == (0, "multipart/mixed" if attached else "multipart/alternative")
    alternative = next(p for p in msg.walk() if p.get_content_type() == "multipart/alternative")
    kinds = [p.get_content_type() for p in alternative.iter_parts()]
    assert kinds == ["text/plain", "multipart/related"]
    related = list(alternative.iter_parts())[1]
    related_parts = list(related.iter_parts())
    assert related_parts[0].get_content_type() == "text/html"
    html = related_parts[0].get_content()
    # the HTML body: small, self-contained, CSS inlined, only cid: images
    assert len(html.encode("utf-8")) < MAX_HTML_BYTES
    links = _Links()
    links.feed(html)
    assert "script" not in links.tags and "style" not in links.tags
    assert "link" not in links.tags and "iframe" not in links.tags
    assert not re.search(r"data:", html, re.IGNORECASE)
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]", html, re.IGNORECASE)
    assert "url(" not in html
    assert 'style="' in html  # the CSS went inline
    assert links.urls and all(u.startswith("cid:") for u in links.urls)
    # every cid reference resolves to a PNG of this multipart/related
    by_cid = {p["Content-ID"].strip("<>"): p for p in related_parts[1:]}
    for url in links.urls:
        part = by_cid[url[4:]]
        assert part.get_content_type() == "image/png"
        assert part.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    for img in links.images:
        assert img.get("alt") and int(img["width"]) <= 640
    # a fluid table layout: 640 px at most, narrower on a phone (375 px): no fixed
    # width above 375 px but the images, which shrink (max-width: 100%)
    assert re.search(r'<table[^>]*class="container"[^>]*max-width: ?640px', html)
    widths = [int(w) for w in re.findall(r'<(?:table|td|div)[^>]*width="(\d+)"', html)]
    assert all(w <= 375 for w in widths), widths
    if attached:
        attachments = {a.get_filename(): a for a in msg.iter_attachments()}
        results = json.loads((folder / "results.json").read_text())
        release = results["report"]["release"]
        html_name = f"report-{release}.html" if release else "report.html"
        assert attachments[html_name].get_content_type() == "text/html"
        assert (
            attachments[html_name].get_payload(decode=True) == (folder / "report.html").read_bytes()
        )
        if (folder / "report.pdf").exists():
            pdf_name = html_name[:-4] + "pdf"
            assert attachments[pdf_name].get_content_type() == "application/pdf"
            assert (
                attachments[pdf_name].get_payload(decode=True)
                == (folder / "report.pdf").read_bytes()
            )
    return html


class _Sink:
    """An aiosmtpd handler that keeps what arrives and can refuse recipients."""

    def __init__(self, refuse: str | None = None) -> None:
        self.messages: list[tuple[str, list[str], bytes]] = []
        self.refuse = refuse

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse and address == self.refuse:
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(
            (
                envelope.mail_from,
                list(envelope.rcpt_tos),
                bytes(envelope.original_content or envelope.content),
            )
        )
        return "250 Message accepted for delivery"


def _authenticator(server, session, envelope, mechanism, auth_data):
    ok = (
        isinstance(auth_data, LoginPassword)
        and auth_data.login == USER.encode()
        and auth_data.password == PASSWORD.encode()
    )
    return AuthResult(success=ok, handled=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    """A test CA (trustme), a certificate for 127.0.0.1, and the CA's PEM file."""
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(server_ctx)
    cafile = tmp_path_factory.mktemp("ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(cafile))
    return server_ctx, cafile


@pytest.fixture()
def smtp_server(request):
    """Start an aiosmtpd server on 127.0.0.1 with the given SMTP options."""
    started = []

    def start(handler=None, **kwargs):
        handler = handler or _Sink()
        controller = Controller(handler, hostname="127.0.0.1", port=_free_port(), **kwargs)
        controller.start()
        started.append(controller)
        return controller, handler

    yield start
    for controller in started:
        controller.stop()


@pytest.fixture()
def no_credentials(monkeypatch, tmp_path):
    for name in (
        "REPORTGEN_SMTP_USER",
        "REPORTGEN_SMTP_PASSWORD",
        "REPORTGEN_SMTP_HOST",
        "REPORTGEN_SMTP_PORT",
        "NETRC",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.netrc of the developer


def _email_args(folder: Path, port: int, *extra: str) -> list[str]:
    return [
        "email",
        str(folder),
        "--to",
        "Ana Lima <ana@example.org>",
        "--to",
        "ops@example.org",
        "--cc",
        "lead@example.org",
        "--from",
        "Eval Bot <bot@example.org>",
        "--smtp-host",
        "127.0.0.1",
        "--smtp-port",
        str(port),
        "--quiet",
        *extra,
    ]


# ------------------------------------------------------------------ the message


def test_email_eml_has_the_parts_images_attachments_and_text(example_releases, tmp_path, capsys):
    folder = example_releases["v10.0"]
    eml = tmp_path / "out" / "release.eml"
    assert (
        main(
            [
                "email",
                str(folder),
                "--to",
                "ana@example.org",
                "--from",
                "bot@example.org",
                "--eml",
                str(eml),
                "--quiet",
            ]
        )
        == 0
    )
    assert "message written to" in capsys.readouterr().out
    msg = _parse(eml.read_bytes())
    _check_message(msg, folder)
    results = json.loads((folder / "results.json").read_text())
    counts = results["verdict"]["counts"]
    text = msg.get_body(("plain",)).get_content().replace("\r\n", "\n")
    # the decision, in the subject and first in the text alternative
    assert counts["no detectable difference"] == len(results["verdict"]["rows"]) == 13
    assert msg["Subject"].endswith(": no detectable difference in 13 comparisons")
    assert (
        "\nRELEASE DECISION\n  "
        + results["verdict"]["candidate"]
        + " is not detectably different from "
        + results["verdict"]["baseline"]
        in text
    )
    assert results["verdict"]["candidate"] in text and "v10.0" in text
    assert msg["To"] == "ana@example.org" and msg["Message-ID"].endswith("@example.org>")


def test_email_of_an_evaluation_report_has_the_leaderboard(example_releases, tmp_path):
    """A report without a verdict: the ordered ranking of results.json, in its order,
    in both alternatives, and a means chart."""
    folder = tmp_path / "evaluation"
    import shutil

    shutil.copytree(example_releases["v9.1"], folder)
    results = json.loads((folder / "results.json").read_text())
    del results["verdict"]
    results["report"]["release"] = None
    (folder / "results.json").write_text(json.dumps(results))
    msg = build_message(
        read_report_folder(folder), sender="bot@example.org", to=["ana@example.org"], max_rows=1
    )
    html = _check_message(_parse(msg.as_bytes()), folder)
    ordered = next(r for r in results["rankings"] if r["kind"] == "ordered")
    top = [s["system"] for s in ordered["systems"][:1]]
    text = msg.get_body(("plain",)).get_content()
    positions = [text.index(name) for name in top]
    assert positions == sorted(positions)
    assert all(name in html for name in top)
    # a release report ranks its two systems only: one row shown, one more
    assert len(ordered["systems"]) == 2
    assert "1 more system in the attached report" in text


def test_email_html_body_stays_under_100kb_with_many_rows(example_releases):
    folder = read_report_folder(example_releases["v10.0"])
    msg = build_message(
        folder, sender="bot@example.org", to=["ana@example.org"], max_rows=10_000, charts=False
    )
    html = msg.get_body(("html",)).get_content()
    assert len(html.encode("utf-8")) < MAX_HTML_BYTES


def test_email_no_attach_sends_the_summary_only(example_releases):
    msg = build_message(
        read_report_folder(example_releases["v9.1"]),
        sender="bot@example.org",
        to=["ana@example.org"],
        attach=False,
        charts=False,
    )
    assert msg.get_content_type() == "multipart/alternative"
    assert not list(msg.iter_attachments())


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (
            ["--to", "not an address", "--from", "bot@example.org"],
            r"--to: not an e-mail address: 'not an address'",
        ),
        (["--to", "ana@example.org", "--from", "bot@"], r"--from: not an e-mail address"),
        (
            ["--to", "ana@example.org", "--from", "bot@example.org", "--max-rows", "0"],
            r"--max-rows must be at least 1",
        ),
        # header injection: a line break in the subject would add a Bcc header
        (
            [
                "--to",
                "ana@example.org",
                "--from",
                "bot@example.org",
                "--subject",
                "v2\r\nBcc: evil@example.org",
            ],
            r"--subject contains a line break",
        ),
        (
            ["--to", "anä@example.org", "--from", "bot@example.org"],
            r"--to: not an e-mail address: 'anä@example.org'",
        ),  # needs SMTPUTF8: refused
    ],
)
def test_email_bad_addresses_exit_2(example_releases, tmp_path, capsys, args, pattern):
    code = main(
        ["email", str(example_releases["v9.1"]), *args, "--eml", str(tmp_path / "m.eml"), "--quiet"]
    )
    err = capsys.readouterr().err
    assert code == 2 and re.search(pattern, err) and "Traceback" not in err
    assert not (tmp_path / "m.eml").exists()


def test_email_of_a_folder_without_results_exits_2(tmp_path, capsys):
    code = main(
        [
            "email",
            str(tmp_path),
            "--to",
            "a@example.org",
            "--from",
            "b@example.org",
            "--eml",
            str(tmp_path / "m.eml"),
        ]
    )
    assert code == 2
    assert "has no results.json, so it is not a report folder" in capsys.readouterr().err


# ------------------------------------------------------------------ sending


def test_email_arrives_at_a_real_smtp_server(example_releases, smtp_server, no_credentials, capsys):
    controller, sink = smtp_server()
    folder = example_releases["v10.0"]
    assert main(_email_args(folder, controller.port, "--bcc", "audit@example.org")) == 0
    out = capsys.readouterr().out
    assert "sent to" in out and "and 1 Bcc recipient via" in out
    assert "audit@" not in out  # a Bcc address is never printed
    [(mail_from, rcpt, raw)] = sink.messages
    assert mail_from == "bot@example.org"
    assert sorted(rcpt) == [
        "ana@example.org",
        "audit@example.org",
        "lead@example.org",
        "ops@example.org",
    ]
    msg = _parse(raw)
    assert "audit@example.org" not in raw.decode("ascii", "replace")  # Bcc stays hidden
    _check_message(msg, folder)
    assert msg["Cc"] == "lead@example.org"


def test_email_starttls_and_auth_with_environment_credentials(
    example_releases, smtp_server, no_credentials, tls, monkeypatch, capsys
):
    server_ctx, cafile = tls
    controller, sink = smtp_server(
        tls_context=server_ctx,
        require_starttls=True,
        authenticator=_authenticator,
        auth_required=True,
    )
    monkeypatch.setenv("REPORTGEN_SMTP_USER", USER)
    monkeypatch.setenv("REPORTGEN_SMTP_PASSWORD", PASSWORD)
    code = main(
        _email_args(
            example_releases["v9.1"],
            controller.port,
            "--starttls",
            "--cafile",
            str(cafile),
            "--no-charts",
        )
    )
    assert code == 0, capsys.readouterr().err
    assert len(sink.messages) == 1


def test_email_auth_from_a_netrc_file(
    example_releases, smtp_server, no_credentials, tls, tmp_path, capsys
):
    server_ctx, cafile = tls
    controller, sink = smtp_server(
        tls_context=server_ctx,
        require_starttls=True,
        authenticator=_authenticator,
        auth_required=True,
    )
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine 127.0.0.1 login {USER} password {PASSWORD}\n")
    netrc.chmod(0o600)
    code = main(
        _email_args(
            example_releases["v9.1"],
            controller.port,
            "--starttls",
            "--cafile",
            str(cafile),
            "--netrc",
            str(netrc),
            "--no-charts",
            "--no-attach",
        )
    )
    assert code == 0, capsys.readouterr().err
    assert len(sink.messages) == 1


def test_email_implicit_tls(example_releases, smtp_server, no_credentials, tls, capsys):
    server_ctx, cafile = tls
    controller, sink = smtp_server(ssl_context=server_ctx, server_hostname="127.0.0.1")
    code = main(
        _email_args(
            example_releases["v9.1"],
            controller.port,
            "--ssl",
            "--cafile",
            str(cafile),
            "--no-charts",
            "--no-attach",
        )
    )
    assert code == 0, capsys.readouterr().err
    assert len(sink.messages) == 1


def _fails(args, capsys, pattern):
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert re.search(pattern, err), err
    assert "Traceback" not in err


def test_email_wrong_password_exits_2(
    example_releases, smtp_server, no_credentials, tls, monkeypatch, capsys
):
    server_ctx, cafile = tls
    controller, sink = smtp_server(
        tls_context=server_ctx,
        require_starttls=True,
        authenticator=_authenticator,
        auth_required=True,
    )
    monkeypatch.setenv("REPORTGEN_SMTP_USER", USER)
    monkeypatch.setenv("REPORTGEN_SMTP_PASSWORD", "wrong")
    _fails(
        _email_args(
            example_releases["v9.1"],
            controller.port,
            "--starttls",
            "--cafile",
            str(cafile),
            "--no-charts",
            "--no-attach",
        ),
        capsys,
        r"127\.0\.0\.1:\d+: the server rejected the credentials \(535 .*\)\n"
        r"  hint: check the credentials in REPORTGEN_SMTP_USER/REPORTGEN_SMTP_PASSWORD",
    )
    assert sink.messages == []


def test_email_untrusted_certificate_exits_2(
    example_releases, smtp_server, no_credentials, tls, capsys
):
    server_ctx, _ = tls
    controller, sink = smtp_server(tls_context=server_ctx, require_starttls=True)
    _fails(
        _email_args(
            example_releases["v9.1"], controller.port, "--starttls", "--no-charts", "--no-attach"
        ),
        capsys,
        r"TLS certificate could not be verified .*\n  hint: pass --cafile FILE",
    )
    assert sink.messages == []


def test_email_password_never_goes_over_plain_text(
    example_releases, smtp_server, no_credentials, monkeypatch, capsys
):
    controller, sink = smtp_server()
    monkeypatch.setenv("REPORTGEN_SMTP_USER", USER)
    monkeypatch.setenv("REPORTGEN_SMTP_PASSWORD", PASSWORD)
    _fails(
        _email_args(example_releases["v9.1"], controller.port, "--no-charts"),
        capsys,
        r"refusing to send the SMTP password over an unencrypted connection",
    )
    assert sink.messages == []


def test_email_refused_connection_exits_2(example_releases, no_credentials, capsys):
    _fails(
        _email_args(example_releases["v9.1"], _free_port(), "--no-charts"),
        capsys,
        r"127\.0\.0\.1:\d+: the connection was refused.*\n  hint: check --smtp-host "
        r"and --smtp-port",
    )


def test_email_timeout_exits_2(example_releases, no_credentials, capsys):
    """A server that accepts the connection and never greets."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    accepted = []
    thread = threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True)
    thread.start()
    try:
        _fails(
            _email_args(
                example_releases["v9.1"],
                listener.getsockname()[1],
                "--timeout",
                "0.5",
                "--no-charts",
            ),
            capsys,
            r"no answer within 0\.5 s",
        )
    finally:
        for conn, _ in accepted:
            conn.close()
        listener.close()


def test_email_refused_recipient_exits_2(example_releases, smtp_server, no_credentials, capsys):
    controller, sink = smtp_server(_Sink(refuse="ops@example.org"))
    _fails(
        _email_args(example_releases["v9.1"], controller.port, "--no-charts", "--no-attach"),
        capsys,
        r"refused for ops@example\.org: 550 5\.1\.1 no such user here",
    )
    # the others got it (nothing is retried, and the message says who did)
    assert sorted(sink.messages[0][1]) == ["ana@example.org", "lead@example.org"]


def test_email_refused_bcc_recipient_is_not_named(
    example_releases, smtp_server, no_credentials, capsys
):
    controller, _ = smtp_server(_Sink(refuse="audit@example.org"))
    code = main(
        _email_args(
            example_releases["v9.1"],
            controller.port,
            "--no-charts",
            "--no-attach",
            "--bcc",
            "audit@example.org",
        )
    )
    captured = capsys.readouterr()
    assert code == 2 and "refused for a Bcc recipient: 550 5.1.1" in captured.err
    assert "audit@" not in captured.err + captured.out


class _NeedsLogin(_Sink):
    """A server that answers MAIL FROM with 530 (RFC 4954: authentication required)."""

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        return "530 5.7.0 Authentication required"


def test_email_530_means_authentication_required(
    example_releases, smtp_server, no_credentials, capsys
):
    controller, _ = smtp_server(_NeedsLogin())
    _fails(
        _email_args(example_releases["v9.1"], controller.port, "--no-charts", "--no-attach"),
        capsys,
        r"the server requires authentication \(530 5\.7\.0 Authentication required\)"
        r"\n  hint: set REPORTGEN_SMTP_USER and REPORTGEN_SMTP_PASSWORD",
    )


class _DropsInData(_Sink):
    """A server that takes the whole message and hangs up instead of answering it."""

    async def handle_DATA(self, server, session, envelope):
        server.transport.close()
        return "250 never sent"


def test_email_connection_dropped_in_data_says_delivery_is_unknown(
    example_releases, smtp_server, no_credentials, capsys
):
    controller, _ = smtp_server(_DropsInData())
    _fails(
        _email_args(example_releases["v9.1"], controller.port, "--no-charts", "--no-attach"),
        capsys,
        r"the connection dropped while the message was being transferred .*: it may "
        r"or may not have been delivered\n  hint: ask a recipient before sending again",
    )


def test_email_over_the_servers_size_limit_exits_2(
    example_releases, smtp_server, no_credentials, capsys
):
    controller, sink = smtp_server(data_size_limit=50_000)
    _fails(
        _email_args(example_releases["v10.0"], controller.port, "--no-charts"),
        capsys,
        r"the message is [\d,]+ bytes and the server accepts at most 50,000\n"
        r"  hint: pass --no-attach",
    )
    assert sink.messages == []


# ------------------------------------------------------------------ settings


def test_smtp_settings_defaults_and_environment(no_credentials, monkeypatch):
    assert smtp_settings().port == 25 and smtp_settings().host == "localhost"
    assert smtp_settings(security="starttls").port == 587
    assert smtp_settings(security="ssl").port == 465
    monkeypatch.setenv("REPORTGEN_SMTP_HOST", "mail.example.org")
    monkeypatch.setenv("REPORTGEN_SMTP_PORT", "2525")
    s = smtp_settings()
    assert (s.host, s.port, s.user) == ("mail.example.org", 2525, None)
    assert "PASSWORD" not in repr(s) and "password=" not in repr(s)


@pytest.mark.parametrize(
    ("env", "kwargs", "pattern"),
    [
        (
            {"REPORTGEN_SMTP_USER": "u"},
            {},
            "REPORTGEN_SMTP_PASSWORD is not set while REPORTGEN_SMTP_USER is",
        ),
        ({"REPORTGEN_SMTP_PORT": "abc"}, {}, "REPORTGEN_SMTP_PORT is not a port number"),
        ({}, {"port": 70000}, "the SMTP port must be between 1 and 65535"),
        ({}, {"timeout": 0}, "the timeout must be positive"),
        ({}, {"cafile": "/nonexistent/ca.pem"}, "the CA file does not exist"),
        ({}, {"netrc_file": "/nonexistent/netrc"}, "the netrc file does not exist"),
    ],
)
def test_smtp_settings_errors(no_credentials, monkeypatch, env, kwargs, pattern):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(MailError, match=pattern):
        smtp_settings(**kwargs)


def test_smtp_settings_malformed_netrc_names_the_line(no_credentials, tmp_path):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine a login x password y\nmachine\n")
    with pytest.raises(MailError, match=r"netrc, line \d+: the netrc file is malformed"):
        smtp_settings(host="a", netrc_file=str(netrc))


def test_attachments_over_the_size_limit_fall_back_to_the_pdf_then_none(example_releases):
    folder = read_report_folder(example_releases["v10.0"])
    html_bytes = folder.html.stat().st_size
    pdf_bytes = folder.pdf.stat().st_size
    assert html_bytes > pdf_bytes / 2  # the case where dropping the HTML helps

    def sent(limit_mb):
        msg = build_message(
            folder, sender="bot@example.org", to=["ana@example.org"], max_attachment_mb=limit_mb
        )
        names = sorted(
            part.get_filename()
            for part in msg.iter_attachments()
            if part.get_filename() and not part.get_filename().endswith(".png")
        )
        return names, msg.get_body(("plain",)).get_content()

    # base64 makes a file 4/3 larger: 1.4x covers it, 1.0x cannot hold it
    names, text = sent((html_bytes + pdf_bytes) * 1.4 / 1e6)
    assert [n.rsplit(".", 1)[1] for n in names] == ["html", "pdf"]
    assert "limit" not in text
    names, text = sent(pdf_bytes * 1.4 / 1e6)
    assert [n.rsplit(".", 1)[1] for n in names] == ["pdf"]
    assert "The HTML report is not attached" in text
    # the folder by its name: the absolute path is private to the sender (issue 34)
    assert f"report folder {folder.path.resolve().name}." in text
    assert str(folder.path.resolve().parent) not in text
    names, text = sent(pdf_bytes * 0.9 / 1e6)
    assert names == []
    assert "The report is not attached" in text and "--max-attachment-mb" in text
    with pytest.raises(MailError):
        sent(0)


def test_email_internationalised_domain_goes_out_as_idna(example_releases, tmp_path):
    # oracle: Python's idna codec (RFC 3490) of the domain
    eml = tmp_path / "m.eml"
    assert (
        main(
            [
                "email",
                str(example_releases["v9.1"]),
                "--to",
                "Ana <ana@exämple.org>",
                "--from",
                "bot@example.org",
                "--eml",
                str(eml),
                "--quiet",
            ]
        )
        == 0
    )
    msg = _parse(eml.read_bytes())
    assert msg["To"] == "Ana <ana@" + "exämple.org".encode("idna").decode() + ">"
    assert b"=?utf-8?" not in eml.read_bytes().split(b"\r\n\r\n", 1)[0].split(b"To:")[1][:60]


def test_email_cafile_that_is_not_pem_exits_2(example_releases, tmp_path, capsys, no_credentials):
    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate\n")
    code = main(
        [
            "email",
            str(example_releases["v9.1"]),
            "--to",
            "ana@example.org",
            "--from",
            "bot@example.org",
            "--smtp-host",
            "127.0.0.1",
            "--smtp-port",
            "9",
            "--cafile",
            str(bad),
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert f"{bad}: --cafile is not a readable PEM file of CA certificates" in err
