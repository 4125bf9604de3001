"""``reportgen email`` as one call: read the report folder, build the message, and send
it (or write it to a ``.eml`` file)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.errors import InputError
from reportgen.report.folder.reader import read_report_folder
from reportgen.report.mail._base import DEFAULT_MAX_ATTACHMENT_MB
from reportgen.report.mail.message import build_message, eml_target, write_eml
from reportgen.report.mail.smtp import send_message, smtp_settings


@dataclass(frozen=True)
class Sent:
    """What :func:`send_report` did: the subject; the ``.eml`` file written and its
    size, or the recipients it was sent to (To and Cc; the Bcc recipients only
    counted, never named), and the server."""

    subject: str
    eml: Path | None = None
    eml_bytes: int = 0
    recipients: tuple[str, ...] = ()
    n_bcc: int = 0
    server: str | None = None


def send_report(
    report: str | Path,
    *,
    sender: str,
    to: Sequence[str],
    cc: Sequence[str] = (),
    bcc: Sequence[str] = (),
    subject: str | None = None,
    reply_to: str | None = None,
    attach: bool = True,
    max_rows: int = 10,
    email_items: bool = False,
    charts: bool = True,
    theme: Any = "default",
    max_attachment_mb: float = DEFAULT_MAX_ATTACHMENT_MB,
    eml: str | Path | None = None,
    force: bool = False,
    smtp: Mapping[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Sent:
    """E-mail the report folder ``report``: its summary in the body, report.html and
    report.pdf attached (:func:`~reportgen.report.mail.message.build_message`), sent
    over SMTP (:func:`~reportgen.report.mail.smtp.send_message` with
    ``smtp_settings(**smtp)``: ``host``, ``port``, ``security``, ``timeout``,
    ``cafile``, ``netrc_file``), or written to ``eml`` instead (a file that exists is
    replaced only with ``force``).

    The SMTP settings are checked before the message is built, so a bad port or a
    missing credential fails before any work.

    Raises
    ------
    InputError
        A bad option (``max_rows`` below 1), report folder or address.
    MailError
        What the server or the network refused, with what to do.
    """
    say = progress or (lambda message: None)
    if max_rows < 1:
        raise InputError(
            f"--max-rows must be at least 1, not {max_rows}", hint="e.g. --max-rows 10"
        )
    settings = smtp_settings(**dict(smtp or {})) if eml is None else None
    if eml is not None:
        eml_target(eml, force=force)  # an existing file is refused before any work
    folder = read_report_folder(report)
    say(f"building the message from {folder.path}")
    msg = build_message(
        folder,
        sender=sender,
        to=to,
        cc=cc,
        subject=subject,
        reply_to=reply_to,
        attach=attach,
        max_rows=max_rows,
        email_items=email_items,
        charts=charts,
        theme=theme,
        max_attachment_mb=max_attachment_mb,
    )
    if eml is not None:
        if bcc:
            say("note: --bcc is not written into a .eml file (give it to your mailer)")
        path = write_eml(msg, eml, force=force)
        return Sent(str(msg["Subject"]), eml=path, eml_bytes=path.stat().st_size)
    assert settings is not None
    recipients = send_message(msg, settings, bcc=bcc, progress=say)
    visible = tuple(recipients[: len(recipients) - len(bcc)])  # Bcc addresses never shown
    return Sent(str(msg["Subject"]), recipients=visible, n_bcc=len(bcc), server=settings.where)
