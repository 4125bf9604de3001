"""The message: the summary alternatives, the inline charts and the attached report
(checked against the manifest, within a size limit), and its ``.eml`` file."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
from collections.abc import Mapping, Sequence
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any, cast

from reportgen.errors import Location, file_system_error, is_file_system_error
from reportgen.plaintext import UNSAFE, shown
from reportgen.report.folder.reader import ReportFolder
from reportgen.report.mail._base import DEFAULT_MAX_ATTACHMENT_MB, MailError
from reportgen.report.mail.addresses import parse_address
from reportgen.report.mail.summary import build_summary

__all__ = ["build_message", "eml_target", "write_eml"]


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "report"


def build_message(
    folder: ReportFolder,
    *,
    sender: str,
    to: Sequence[str],
    cc: Sequence[str] = (),
    subject: str | None = None,
    reply_to: str | None = None,
    attach: bool = True,
    max_rows: int = 10,
    email_items: bool = False,
    charts: bool = True,
    theme: Any = "default",
    max_attachment_mb: float = DEFAULT_MAX_ATTACHMENT_MB,
) -> EmailMessage:
    """The complete message: the summary alternatives and the attached report.

    Parameters
    ----------
    folder
        The report folder (:func:`read_report_folder`).
    sender, to, cc, reply_to
        Addresses (``name@host`` or ``Name <name@host>``); Bcc recipients are not part
        of the message, pass them to :func:`send_message`.
    subject
        Default: the title, the release and the headline (verdict counts or the leader).
    attach
        Attach ``report.html`` and ``report.pdf`` (those the folder has).
    max_rows, charts, theme, email_items
        See :func:`build_summary`.
    max_attachment_mb
        Largest total size of the attachments as sent (base64 adds a third), in MB
        (10⁶ bytes): above it only the PDF is attached, and if the PDF alone is too large
        nothing is; the message says so and where the report folder is.

    Raises
    ------
    MailError
        A bad address, a limit that is not positive, or nothing to attach while
        ``attach`` is true.
    """
    if not (max_attachment_mb > 0):
        raise MailError(
            f"--max-attachment-mb must be positive, not {max_attachment_mb}",
            location=Location("--max-attachment-mb"),
            hint="e.g. --max-attachment-mb 10 (most mail servers accept "
            "10-25 MB); --no-attach sends the summary only",
        )
    from_addr = parse_address(sender, option="--from")
    to_addrs = [parse_address(a, option="--to") for a in to]
    cc_addrs = [parse_address(a, option="--cc") for a in cc]
    if not to_addrs:
        raise MailError(
            "no recipient",
            location=Location("--to"),
            hint="pass --to ADDRESS (repeat it for several)",
        )
    files: list[tuple[Path, str, str, str]] = []
    stem = "report" + (f"-{_safe_name(folder.release)}" if folder.release else "")
    contents: dict[Path, bytes] = {}
    if attach:
        for path, maintype, subtype in (
            (folder.path / "report.html", "text", "html"),
            (folder.path / "report.pdf", "application", "pdf"),
        ):
            data = _attachment(folder, path)
            if data is not None:
                contents[path] = data
                files.append((path, maintype, subtype, f"{stem}.{subtype}"))
        if not files:
            raise MailError(
                "the report folder has no report.html or report.pdf to attach",
                location=Location(str(folder.path)),
                hint="run `reportgen run` with --format html,pdf, or pass "
                "--no-attach to send the summary only",
            )
    files, left_out = _within_limit(files, max_attachment_mb, folder.path, contents)
    summary = build_summary(
        folder,
        max_rows=max_rows,
        email_items=email_items,
        charts=charts,
        attachments=[f[3] for f in files],
        cid_domain=from_addr.domain,
        theme=theme,
        left_out=left_out,
    )
    if subject is not None and UNSAFE.search(subject):
        raise MailError(
            "--subject contains a line break or a control character "
            f"({shown(UNSAFE.findall(subject)[0])}), which could add mail headers or "
            "rewrite what readers see",
            location=Location("--subject"),
            hint="give the subject on one line, in printable characters",
        )
    msg = EmailMessage()
    # a title or release label stored with a line break must not open a header
    msg["Subject"] = subject if subject else shown(" ".join(summary.subject.split()))
    msg["From"] = from_addr
    msg["To"] = to_addrs
    if cc_addrs:
        msg["Cc"] = cc_addrs
    if reply_to:
        msg["Reply-To"] = parse_address(reply_to, option="--reply-to")
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(idstring="reportgen", domain=from_addr.domain)
    msg["X-Mailer"] = f"reportgen {folder.ledger.meta.reportgen_version}".strip()
    msg.set_content(summary.text, subtype="plain", charset="utf-8")
    msg.add_alternative(summary.html, subtype="html", charset="utf-8")
    html_part = cast(EmailMessage, msg.get_payload(1))
    for image in summary.images:
        html_part.add_related(
            image.data,
            maintype="image",
            subtype="png",
            cid=f"<{image.cid}>",
            disposition="inline",
            filename=f"{image.cid.split('@')[0]}.png",
        )
    for path, maintype, subtype, name in files:
        msg.add_attachment(contents[path], maintype=maintype, subtype=subtype, filename=name)
    return msg


def _attachment(folder: ReportFolder, path: Path) -> bytes | None:
    """The bytes of a report file to attach, read once without following links and
    checked against the manifest; None when the folder has no such file.

    Raises
    ------
    MailError
        The file is a symbolic link (or not a regular file), or it differs from the
        SHA-256 the report's manifest records, or the manifest does not list it: what
        would be mailed is not what reportgen wrote.
    """
    from reportgen.report.folder.archive import entry_kind, read_regular

    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    hint = (
        "run `reportgen verify` on the folder, or make the report again; "
        "--no-attach sends the summary only"
    )
    if not stat.S_ISREG(mode):
        raise MailError(
            f"{path.name} is {entry_kind(mode)}, not the file reportgen wrote: it is "
            "never attached",
            location=Location(str(path)),
            hint=hint,
        )
    try:
        data = read_regular(path)
    except OSError as exc:
        raise MailError(
            f"{path.name} cannot be read ({exc.strerror or exc})",
            location=Location(str(path)),
            hint=hint,
        ) from None
    if folder.manifest is not None:
        outputs = folder.manifest.get("outputs")
        entry = outputs.get(path.name) if isinstance(outputs, dict) else None
        if not isinstance(entry, dict):
            raise MailError(
                f"{path.name} is not listed in the report's manifest.json, so it is not attached",
                location=Location(str(path)),
                hint=hint,
            )
        if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            raise MailError(
                f"{path.name} differs from the file reportgen wrote (its SHA-256 is not "
                "the one manifest.json records), so it is not attached",
                location=Location(str(path)),
                hint=hint,
            )
    return data


def _sent_bytes(size: int) -> int:
    """The size of a file of ``size`` bytes attached in base64 (4 bytes per 3, lines of
    76 + CRLF)."""
    encoded = 4 * ((size + 2) // 3)
    return encoded + 2 * (encoded // 76 + 1)


def _folder_name(folder: Path) -> str:
    """The report folder by its name: the message goes to people who do not share the
    sender's file system, and its absolute path is private."""
    return folder.resolve().name


def _within_limit(
    files: list[tuple[Path, str, str, str]],
    limit_mb: float,
    folder: Path,
    contents: Mapping[Path, bytes],
) -> tuple[list[tuple[Path, str, str, str]], str | None]:
    """The attachments that fit ``limit_mb``: all of them, else the PDF only, else none;
    and the sentence that says what was left out and why."""
    limit = limit_mb * 1e6

    def total(chosen: list[tuple[Path, str, str, str]]) -> int:
        return sum(_sent_bytes(len(contents[f[0]])) for f in chosen)

    if total(files) <= limit:
        return files, None
    pdf = [f for f in files if f[2] == "pdf"]
    size = f"{total(files) / 1e6:.1f} MB"
    if pdf and len(pdf) < len(files) and total(pdf) <= limit:
        return pdf, (
            f"The HTML report is not attached: with it the attachments would be "
            f"{size}, over the {limit_mb:g} MB limit (--max-attachment-mb); it "
            f"is in the report folder {_folder_name(folder)}."
        )
    return [], (
        f"The report is not attached: {size}, over the {limit_mb:g} MB limit "
        f"(--max-attachment-mb); it is in the report folder {_folder_name(folder)}."
    )


def eml_target(path: str | Path, *, force: bool = False) -> Path:
    """The ``--eml`` file to write, checked before any work: not a folder, not a link,
    and (unless ``force``) not a file that exists, which is left as it was.

    Raises
    ------
    MailError
        Saying which, and what to do.
    """
    target = Path(path)
    if target.is_dir():
        raise MailError(
            "the --eml path is a folder",
            location=Location(str(target)),
            hint="name a file, e.g. --eml report.eml",
        )
    if target.is_symlink():
        raise MailError(
            "the --eml path is a symbolic link; it was left as it was",
            location=Location(str(target)),
            hint="name another file (a link is never written through or replaced)",
        )
    if os.path.lexists(target) and not force:
        raise MailError(
            "the --eml file exists; it was left as it was",
            location=Location(str(target)),
            hint="name another file, or pass --force to replace it",
        )
    return target


def write_eml(msg: EmailMessage, path: str | Path, *, force: bool = False) -> Path:
    """Write the message to ``path`` (RFC 5322, CRLF line ends) atomically.

    Parameters
    ----------
    msg
        The message.
    path
        The ``.eml`` file to create.
    force
        Replace a file that exists there (``--force``); without it an existing file is
        an error and is left as it was.

    Raises
    ------
    MailError
        The file exists (without ``force``), is a folder or a link, or cannot be written.
    """
    import tempfile
    from email.policy import SMTP

    target = eml_target(path, force=force)
    data = msg.as_bytes(policy=SMTP)
    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        from reportgen.report.folder.output import default_mode

        os.chmod(tmp, default_mode())
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None:  # nothing half-written stays beside the file
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        fault = file_system_error(exc, target, reading=False, what="the message")
        raise MailError(
            f"{fault.message}; nothing was written",
            location=Location(str(target)),
            hint=str(fault.hint).replace("--out", "--eml")
            if is_file_system_error(exc)
            else "choose a path you can write to",
        ) from None
    return target
