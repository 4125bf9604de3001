"""E-mail a report folder to stakeholders.

The message is what mail clients show well: a short summary in the body and the full
report attached.

* ``multipart/alternative``: a plain-text summary (headline verdicts, leaderboard) and an
  HTML summary. The HTML has its CSS inlined (css-inline), a table layout 640 px wide, no
  script, no ``data:`` URI and no external URL, and stays under 100 KB. Its charts are
  PNG images attached inline by Content-ID (``multipart/related``), because mail clients
  drop ``data:`` URIs and SVG.
* ``report.html`` and ``report.pdf`` of the folder attached (the name carries the release
  label when there is one).

Credentials never come from the command line: ``REPORTGEN_SMTP_USER`` and
``REPORTGEN_SMTP_PASSWORD``, or else the ``machine`` entry of the SMTP host in a
netrc file (``--netrc FILE``, ``$NETRC``, or ``~/.netrc``). They are sent only over TLS
(``--starttls`` or ``--ssl``). SMTP failures (refused connection, unknown host, timeout,
TLS, rejected credentials, refused recipients, a message too large) raise
:class:`MailError` with what happened and what to do; nothing is retried.

The package's rooms: :mod:`~reportgen.report.mail.summary` (the subject, text and HTML
of the body), :mod:`~reportgen.report.mail.message` (the message and its attachments),
:mod:`~reportgen.report.mail.addresses` and :mod:`~reportgen.report.mail.smtp`
(settings, deadline, delivery), and :mod:`~reportgen.report.mail.send`, the command as one
call (:func:`send_report`). The report folder is read by
:mod:`reportgen.report.folder.reader`.
"""

from reportgen.report.folder.reader import ReportFolder, read_report_folder
from reportgen.report.mail._base import (
    DEFAULT_MAX_ATTACHMENT_MB,
    ENV_HOST,
    ENV_PASSWORD,
    ENV_PORT,
    ENV_USER,
    MAX_HTML_BYTES,
    MailError,
)
from reportgen.report.mail.addresses import parse_address
from reportgen.report.mail.message import build_message, write_eml
from reportgen.report.mail.send import Sent, send_report
from reportgen.report.mail.smtp import SMTPSettings, send_message, smtp_settings
from reportgen.report.mail.summary import InlineImage, Summary, build_summary

__all__ = [
    "DEFAULT_MAX_ATTACHMENT_MB",
    "ENV_HOST",
    "ENV_PASSWORD",
    "ENV_PORT",
    "ENV_USER",
    "MAX_HTML_BYTES",
    "InlineImage",
    "MailError",
    "ReportFolder",
    "SMTPSettings",
    "Sent",
    "Summary",
    "build_message",
    "build_summary",
    "parse_address",
    "read_report_folder",
    "send_message",
    "send_report",
    "smtp_settings",
    "write_eml",
]
