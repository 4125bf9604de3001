"""Sending over SMTP: the settings (options, environment, netrc), one total deadline for
the whole exchange, and every failure turned into a :class:`MailError` that says what
happened and what to do. Nothing is retried."""

from __future__ import annotations

import contextlib
import netrc
import os
import smtplib
import socket
import ssl
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any, TypeVar

from reportgen.errors import Location
from reportgen.plaintext import count
from reportgen.report.mail._base import ENV_HOST, ENV_PASSWORD, ENV_PORT, ENV_USER, MailError
from reportgen.report.mail.addresses import parse_address

__all__ = ["SMTPSettings", "send_message", "smtp_settings"]

_DEFAULT_PORTS = {"none": 25, "starttls": 587, "ssl": 465}


@dataclass(frozen=True)
class SMTPSettings:
    """Where and how to send.

    Attributes
    ----------
    host, port
        The SMTP server.
    security
        ``"none"``, ``"starttls"`` (upgrade a plain connection) or ``"ssl"`` (TLS from
        the start, usually port 465).
    timeout
        Seconds the whole SMTP exchange may take, from the connection to the server's
        last reply (one total deadline: a server that answers slowly, a line a second,
        cannot stretch it).
    cafile
        CA bundle (PEM) to verify the server's certificate with, for a private CA;
        default: the system's trust store.
    user, password
        Credentials (from the environment or netrc); None for no AUTH.
    credentials_from
        Where the credentials came from (shown in messages, never the password).
    """

    host: str
    port: int
    security: str = "none"
    timeout: float = 30.0
    cafile: str | None = None
    user: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    credentials_from: str | None = None

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"


def smtp_settings(
    *,
    host: str | None = None,
    port: int | None = None,
    security: str = "none",
    timeout: float = 30.0,
    cafile: str | None = None,
    netrc_file: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> SMTPSettings:
    """Resolve the SMTP settings: options, then ``REPORTGEN_SMTP_HOST`` /
    ``REPORTGEN_SMTP_PORT``, then defaults (localhost; port 25, 587 with STARTTLS, 465
    with SSL). Credentials: ``REPORTGEN_SMTP_USER`` and ``REPORTGEN_SMTP_PASSWORD``,
    else the host's entry in the netrc file (``netrc_file``, ``$NETRC``, ``~/.netrc``).

    Raises
    ------
    MailError
        A bad port or timeout, only one of the two variables set, an unreadable or
        malformed netrc file, a missing CA file.
    """
    env = os.environ if environ is None else environ
    if security not in _DEFAULT_PORTS:
        raise MailError(f"unknown security {security!r}", hint="none, starttls or ssl")
    host = host or env.get(ENV_HOST) or "localhost"
    if port is None and env.get(ENV_PORT):
        try:
            port = int(env[ENV_PORT])
        except ValueError:
            raise MailError(
                f"{ENV_PORT} is not a port number: {env[ENV_PORT]!r}",
                hint="set it to a number such as 587",
            ) from None
    port = _DEFAULT_PORTS[security] if port is None else port
    if not 0 < port < 65536:
        raise MailError(
            f"the SMTP port must be between 1 and 65535, not {port}",
            location=Location("--smtp-port"),
            hint="e.g. 587 for STARTTLS",
        )
    if not timeout > 0:
        raise MailError(
            f"the timeout must be positive, not {timeout:g}",
            location=Location("--timeout"),
            hint="e.g. --timeout 30",
        )
    if cafile is not None and not Path(cafile).is_file():
        raise MailError(
            "the CA file does not exist",
            location=Location(str(cafile)),
            hint="pass a PEM bundle of the CA that signed the server's certificate",
        )
    user, password = env.get(ENV_USER) or None, env.get(ENV_PASSWORD) or None
    source = None
    if (user is None) != (password is None):
        missing = ENV_PASSWORD if password is None else ENV_USER
        raise MailError(
            f"{missing} is not set while {ENV_USER if password is None else ENV_PASSWORD} is",
            hint="set both variables, or neither to use a netrc file",
        )
    if user is not None:
        source = f"{ENV_USER}/{ENV_PASSWORD}"
    else:
        user, password, source = _netrc_credentials(host, netrc_file, env)
    return SMTPSettings(
        host=host,
        port=port,
        security=security,
        timeout=float(timeout),
        cafile=cafile,
        user=user,
        password=password,
        credentials_from=source,
    )


def _netrc_credentials(
    host: str, netrc_file: str | None, env: Mapping[str, str]
) -> tuple[str | None, str | None, str | None]:
    if netrc_file is not None:
        path = Path(netrc_file)
        if not path.is_file():
            raise MailError(
                "the netrc file does not exist",
                location=Location(str(path)),
                hint="pass an existing file to --netrc",
            )
    elif env.get("NETRC"):
        path = Path(env["NETRC"])
    else:
        path = Path(env.get("HOME") or Path.home()) / ".netrc"
    if not path.is_file():
        return None, None, None
    try:
        entry = netrc.netrc(str(path)).authenticators(host)
    except netrc.NetrcParseError as exc:
        raise MailError(
            f"the netrc file is malformed ({exc.msg})",
            location=Location(str(path), exc.lineno),
            hint="each entry reads: machine HOST login USER password PASSWORD",
        ) from None
    except OSError as exc:
        raise MailError(
            f"cannot read the netrc file ({exc.strerror or exc})",
            location=Location(str(path)),
            hint="check its permissions",
        ) from None
    if entry is None:
        return None, None, None
    login, _account, password = entry
    if not login or not password:
        raise MailError(
            f"the netrc entry of {host} lacks a login or a password",
            location=Location(str(path)),
            hint=f"write: machine {host} login USER password PASSWORD",
        )
    return login, password, f"netrc {path}"


class _Deadline:
    """One total deadline for an SMTP exchange: when it passes, every socket of the
    exchange is shut down, which ends any read or write in progress (smtplib's own
    timeout applies to each read, so a server trickling a line a second would keep it
    waiting forever)."""

    def __init__(self, seconds: float) -> None:
        import threading

        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def remaining(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the SMTP deadline passed")
        return left

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                with contextlib.suppress(OSError):
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


class _BoundedContext:
    """An ``ssl.SSLContext`` whose sockets obey a :class:`_Deadline` from the start of
    their handshake (the TLS socket replaces the plain one, whose descriptor it takes:
    the deadline must watch the new one, for ``--ssl`` and after ``STARTTLS``)."""

    def __init__(self, context: ssl.SSLContext, deadline: _Deadline) -> None:
        self._context, self._deadline = context, deadline

    def wrap_socket(self, sock: socket.socket, **kwargs: Any) -> ssl.SSLSocket:
        wrapped = self._context.wrap_socket(sock, do_handshake_on_connect=False, **kwargs)
        self._deadline.watch(wrapped)
        wrapped.do_handshake()
        return wrapped

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


_SMTP = TypeVar("_SMTP", bound=smtplib.SMTP)


def _resolve(host: str, port: int, deadline: _Deadline) -> list[str]:
    """The addresses of ``host``, looked up within what is left of ``deadline``: the
    system's resolver has a timeout of its own (5 s per server and attempt, often more
    than the whole ``--timeout``) that no socket of ours can shorten, so the lookup runs
    in a thread the exchange stops waiting for."""
    import threading

    found: dict[str, Any] = {}

    def look_up() -> None:
        try:
            found["infos"] = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
        except OSError as exc:
            found["error"] = exc

    worker = threading.Thread(target=look_up, name="reportgen-smtp-resolve", daemon=True)
    worker.start()
    worker.join(deadline.remaining())
    if worker.is_alive():
        raise TimeoutError("the SMTP deadline passed while the host name was looked up")
    if "error" in found:
        raise found["error"]
    return list(dict.fromkeys(str(info[4][0]) for info in found["infos"]))


def _with_deadline(base: type[_SMTP], deadline: _Deadline) -> type[_SMTP]:
    """``base`` (``SMTP`` or ``SMTP_SSL``) whose socket obeys ``deadline``, the host name
    looked up within it too (:func:`_resolve`); TLS still checks the name given."""

    class _Bounded(base):  # type: ignore[valid-type, misc]
        def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
            error: OSError | None = None
            for address in _resolve(host, port, deadline):
                try:
                    sock = super()._get_socket(address, port, min(timeout, deadline.remaining()))
                except OSError as exc:  # the next address, as create_connection does
                    error = exc
                    continue
                deadline.watch(sock)
                return sock
            raise error or OSError(f"no address for {host!r}")

    return _Bounded


def _local_name() -> str | None:
    """The name this machine gives in EHLO, found without a DNS lookup: the host name
    when it is a domain name, else None (then the address literal of the connection,
    RFC 5321 §4.1.4). smtplib's own default (``socket.getfqdn()``) asks DNS, which can
    block well past the deadline."""
    name = socket.gethostname()
    return name if "." in name.strip(".") else None


def send_message(
    msg: EmailMessage,
    settings: SMTPSettings,
    *,
    bcc: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> list[str]:
    """Send ``msg`` to its To and Cc recipients and ``bcc``; return the recipients.

    The whole exchange must end within ``settings.timeout`` seconds.

    Raises
    ------
    MailError
        Anything the server or the network refused, with what to do; the message may
        have reached no one (or, when only some recipients were refused, the others:
        the message says which).
    """
    deadline = _Deadline(settings.timeout)
    try:
        return _send_message(msg, settings, deadline, bcc=bcc, progress=progress)
    except MailError as exc:
        if not deadline.expired:
            raise
        if "may or may not" in exc.message:
            raise MailError(
                f"{exc.message} (the --timeout of {settings.timeout:g} s ran out)",
                location=exc.location,
                hint=exc.hint,
            ) from None
        raise MailError(
            f"no answer within {settings.timeout:g} s (the whole exchange with the server "
            "must end within --timeout)",
            location=Location(settings.where),
            hint="check the host and port, or raise --timeout",
        ) from None
    finally:
        deadline.cancel()


@dataclass
class _Exchange:
    """One delivery as it goes: the envelope, the bytes, and how far it got (``phase``:
    connect, envelope, data, done), which decides what a dropped connection means."""

    sender: str
    recipients: list[str]
    hidden: list[str]
    data: bytes
    where: Location
    phase: str = "connect"

    def shown(self, addr: str) -> str:
        """An address as messages print it; a Bcc address is never printed."""
        return "a Bcc recipient" if addr in self.hidden else addr


def _send_message(
    msg: EmailMessage,
    settings: SMTPSettings,
    deadline: _Deadline,
    *,
    bcc: Sequence[str],
    progress: Callable[[str], None] | None,
) -> list[str]:
    from email.policy import SMTP

    say = progress or (lambda message: None)
    recipients = [
        a.addr_spec
        for key in ("To", "Cc")
        for a in (msg[key].addresses if msg[key] is not None else ())
    ]
    hidden = [parse_address(a, option="--bcc").addr_spec for a in bcc]
    exchange = _Exchange(
        sender=msg["From"].addresses[0].addr_spec,
        recipients=recipients + hidden,
        hidden=hidden,
        data=msg.as_bytes(policy=SMTP),
        where=Location(settings.where),
    )
    context = _tls_context(settings)
    try:
        refused = _deliver(exchange, settings, deadline, context, say)
    except MailError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure is named, the rest re-raised
        failure = _failure(exc, exchange, settings)
        if failure is None:
            raise
        raise failure from None
    if refused:
        shown = exchange.shown
        detail = "; ".join(f"{shown(addr)}: {_reply_of(*reply)}" for addr, reply in refused.items())
        delivered = [shown(r) for r in exchange.recipients if r not in refused]
        raise MailError(
            f"sent to {', '.join(delivered)}, but refused for {detail}",
            location=exchange.where,
            hint="fix those addresses and send to them alone",
        )
    return exchange.recipients


def _tls_context(settings: SMTPSettings) -> ssl.SSLContext:
    """The TLS context: the system's trust store, or ``--cafile``."""
    try:
        return ssl.create_default_context(cafile=settings.cafile)
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise MailError(
            f"--cafile is not a readable PEM file of CA certificates "
            f"({getattr(exc, 'reason', None) or exc})",
            location=Location(str(settings.cafile)),
            hint="give a PEM bundle (-----BEGIN CERTIFICATE-----), e.g. the "
            "one your system trusts, or leave --cafile out",
        ) from None


def _connect(settings: SMTPSettings, deadline: _Deadline, context: ssl.SSLContext) -> smtplib.SMTP:
    """A connection to the server (TLS from the start with ``--ssl``) under ``deadline``;
    its TLS sockets obey it too (:class:`_BoundedContext`, a duck-typed SSLContext the
    stubs do not admit)."""
    name = _local_name()
    server: smtplib.SMTP
    if settings.security == "ssl":
        server = _with_deadline(smtplib.SMTP_SSL, deadline)(  # type: ignore[call-overload]
            settings.host,
            settings.port,
            local_hostname=name or "localhost",
            timeout=settings.timeout,
            context=_BoundedContext(context, deadline),
        )
    else:
        server = _with_deadline(smtplib.SMTP, deadline)(
            settings.host,
            settings.port,
            local_hostname=name or "localhost",
            timeout=settings.timeout,
        )
    if name is None and server.sock is not None:  # EHLO comes later, with this name
        server.local_hostname = _address_literal(server.sock)
    return server


def _address_literal(sock: socket.socket) -> str:
    """This end's address as an EHLO address literal: ``[192.0.2.1]``, ``[IPv6:...]``."""
    address = str(sock.getsockname()[0])
    return f"[IPv6:{address}]" if ":" in address else f"[{address}]"


def _deliver(
    exchange: _Exchange,
    settings: SMTPSettings,
    deadline: _Deadline,
    context: ssl.SSLContext,
    say: Callable[[str], None],
) -> dict[str, tuple[int, bytes]]:
    """Connect, secure, log in and send; the recipients the server refused (not all)."""
    where, data = exchange.where, exchange.data
    say(f"connecting to {settings.where} ({settings.security})")
    with _connect(settings, deadline, context) as server:
        server.ehlo()
        if settings.security == "starttls":
            if not server.has_extn("starttls"):
                raise MailError(
                    "the server does not offer STARTTLS",
                    location=where,
                    hint="use --ssl if it expects TLS from the start "
                    "(often port 465), or check the port",
                )
            server.starttls(context=_BoundedContext(context, deadline))  # type: ignore[call-overload]
            server.ehlo()
        if settings.user is not None:
            _login(server, settings, where, say)
        limit = server.esmtp_features.get("size", "").strip()
        if limit.isdigit() and int(limit) and len(data) > int(limit):
            raise MailError(
                f"the message is {len(data):,} bytes and the server accepts at most {int(limit):,}",
                location=where,
                hint="pass --no-attach to send the summary only, or make "
                "the report smaller (--format html)",
            )
        say(f"sending {len(data):,} bytes to {count(len(exchange.recipients), 'recipient')}")
        # smtplib's sendmail, step by step, to know whether DATA had begun when a
        # connection drops (then the message may have been delivered)
        exchange.phase = "envelope"
        options = [f"size={len(data)}"] if server.has_extn("size") else []
        code, reply = server.mail(exchange.sender, options)
        if code != 250:
            raise smtplib.SMTPSenderRefused(code, reply, exchange.sender)
        refused: dict[str, tuple[int, bytes]] = {}
        for addr in exchange.recipients:
            code, reply = server.rcpt(addr)
            if code not in (250, 251):
                refused[addr] = (code, reply)
        if len(refused) == len(exchange.recipients):
            raise smtplib.SMTPRecipientsRefused(refused)
        exchange.phase = "data"
        code, reply = server.data(data)
        if code != 250:
            raise smtplib.SMTPDataError(code, reply)
        exchange.phase = "done"
    return refused


def _login(
    server: smtplib.SMTP, settings: SMTPSettings, where: Location, say: Callable[[str], None]
) -> None:
    """AUTH with the settings' credentials, only over TLS and only where offered."""
    if settings.security == "none":
        raise MailError(
            "refusing to send the SMTP password over an unencrypted connection",
            location=where,
            hint="add --starttls or --ssl (or unset "
            f"{ENV_USER}/{ENV_PASSWORD} for a relay that "
            "needs no login)",
        )
    if not server.has_extn("auth"):
        raise MailError(
            "the server does not offer AUTH, but credentials are "
            f"set ({settings.credentials_from})",
            location=where,
            hint="unset them for a relay that needs no login, or check the host and port",
        )
    say(f"logging in as {settings.user}")
    server.login(str(settings.user), settings.password or "")


def _failure(exc: Exception, exchange: _Exchange, settings: SMTPSettings) -> MailError | None:
    """What went wrong, said so that the user knows what to do; None for an exception no
    SMTP exchange raises (then it propagates)."""
    if isinstance(exc, smtplib.SMTPException):
        return _smtp_failure(exc, exchange, settings)
    return _network_failure(exc, exchange, settings)


def _smtp_failure(
    exc: smtplib.SMTPException, exchange: _Exchange, settings: SMTPSettings
) -> MailError:
    """A refusal or an error reply of the server, or a connection it dropped."""
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return MailError(
            f"the server rejected the credentials ({_reply(exc)})",
            location=exchange.where,
            hint=f"check the credentials in {settings.credentials_from}",
        )
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        if all(code == 530 for code, _ in exc.recipients.values()):
            return _auth_required(
                exc.recipients[next(iter(exc.recipients))], settings, exchange.where
            )
        detail = "; ".join(
            f"{exchange.shown(addr)}: {_reply_of(*reply)}" for addr, reply in exc.recipients.items()
        )
        return MailError(
            f"every recipient was refused ({detail})",
            location=exchange.where,
            hint="check the addresses, or whether this server relays to them",
        )
    if isinstance(exc, smtplib.SMTPSenderRefused):
        if exc.smtp_code == 530:
            return _auth_required((exc.smtp_code, exc.smtp_error), settings, exchange.where)
        return MailError(
            f"the sender {exc.sender!r} was refused ({_reply(exc)})",
            location=exchange.where,
            hint="use a --from address this server accepts",
        )
    if isinstance(exc, smtplib.SMTPDataError):
        return MailError(
            f"the server refused the message ({_reply(exc)})",
            location=exchange.where,
            hint="a size limit? try --no-attach",
        )
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return MailError(
            f"the server does not support a required command ({exc})",
            location=exchange.where,
            hint="check --starttls/--ssl and the port",
        )
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        if exchange.phase == "data":
            return MailError(
                "the connection dropped while the message was being "
                f"transferred ({exc or 'no reason given'}): it may or may not "
                "have been delivered",
                location=exchange.where,
                hint="ask a recipient before sending again (a second send may deliver it twice)",
            )
        if "timed out" in str(exc):  # smtplib reports a read timeout this way
            return MailError(
                f"no answer within {settings.timeout:g} s",
                location=exchange.where,
                hint="check the host and port, or raise --timeout",
            )
        return MailError(
            f"the server closed the connection ({exc or 'no reason given'})",
            location=exchange.where,
            hint="check the port and --starttls/--ssl (a TLS port spoken to "
            "in plain text often just hangs up)",
        )
    if isinstance(exc, smtplib.SMTPResponseException):
        return MailError(
            f"the server answered with an error ({_reply(exc)})",
            location=exchange.where,
            hint="see the server's reply above",
        )
    return MailError(
        f"SMTP failed ({exc})", location=exchange.where, hint="check the server settings"
    )


def _network_failure(
    exc: Exception, exchange: _Exchange, settings: SMTPSettings
) -> MailError | None:
    """TLS, name resolution, timeout and socket failures (subclasses of OSError, checked
    before it); None for anything else."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return MailError(
            f"the server's TLS certificate could not be verified "
            f"({exc.verify_message or exc.reason})",
            location=exchange.where,
            hint="pass --cafile FILE with the CA that signed it (never disable verification)",
        )
    if isinstance(exc, ssl.SSLError):
        return MailError(
            f"the TLS handshake failed ({exc.reason or exc})",
            location=exchange.where,
            hint="check --starttls/--ssl against what the port expects",
        )
    if isinstance(exc, socket.gaierror):
        return MailError(
            f"unknown SMTP host {settings.host!r} ({exc.strerror})",
            location=exchange.where,
            hint="check --smtp-host",
        )
    if isinstance(exc, TimeoutError):
        return MailError(
            f"no answer within {settings.timeout:g} s",
            location=exchange.where,
            hint="check the host and port, or raise --timeout",
        )
    if isinstance(exc, ConnectionRefusedError):
        return MailError(
            "the connection was refused (nothing listens there)",
            location=exchange.where,
            hint="check --smtp-host and --smtp-port",
        )
    if isinstance(exc, OSError):
        return MailError(
            f"cannot reach the server ({exc.strerror or exc})",
            location=exchange.where,
            hint="check the host, the port and the network",
        )
    return None


def _auth_required(
    reply: tuple[int, bytes | str], settings: SMTPSettings, where: Location
) -> MailError:
    """A 530 reply: the server wants a login (RFC 4954), not a different sender."""
    how = (
        "the credentials were not used: log in needs --starttls or --ssl"
        if settings.user is not None and settings.security == "none"
        else f"set {ENV_USER} and {ENV_PASSWORD}, or a netrc entry for the host, and use "
        "--starttls or --ssl"
    )
    return MailError(
        f"the server requires authentication ({_reply_of(*reply)})", location=where, hint=how
    )


def _reply_of(code: int, message: bytes | str) -> str:
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
    return f"{code} {text}".strip()


def _reply(exc: smtplib.SMTPResponseException) -> str:
    return _reply_of(exc.smtp_code, exc.smtp_error)
