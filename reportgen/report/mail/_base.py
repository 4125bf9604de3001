"""What the parts of the e-mail share: its error and its limits."""

from __future__ import annotations

from reportgen.errors import InputError

__all__ = [
    "BODY_WIDTH",
    "DEFAULT_MAX_ATTACHMENT_MB",
    "ENV_HOST",
    "ENV_PASSWORD",
    "ENV_PORT",
    "ENV_USER",
    "MAX_HTML_BYTES",
    "MailError",
]

#: Default limit of the attachments, in MB as sent (most mail servers take 10-25 MB).
DEFAULT_MAX_ATTACHMENT_MB = 10.0


ENV_USER = "REPORTGEN_SMTP_USER"
ENV_PASSWORD = "REPORTGEN_SMTP_PASSWORD"
ENV_HOST = "REPORTGEN_SMTP_HOST"
ENV_PORT = "REPORTGEN_SMTP_PORT"
#: Largest HTML body we send (bytes, after CSS inlining).
MAX_HTML_BYTES = 100_000
#: Width of the e-mail layout and of its charts (CSS pixels).
BODY_WIDTH = 640


class MailError(InputError):
    """The message could not be built or delivered (the CLI exits with status 2)."""
