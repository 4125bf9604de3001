"""E-mail addresses as the options give them: checked, and an internationalised domain
written in its IDNA form."""

from __future__ import annotations

from email.headerregistry import Address, AddressHeader
from typing import cast

from reportgen.errors import Location
from reportgen.report.mail._base import MailError

__all__ = ["parse_address"]


def parse_address(text: str, *, option: str) -> Address:
    """An address such as ``ana@example.org`` or ``Ana Lima <ana@example.org>``.

    Raises
    ------
    MailError
        Not an e-mail address (named by the option it came from).
    """
    from email.headerregistry import HeaderRegistry

    value = str(text).strip()
    try:
        header = cast(AddressHeader, HeaderRegistry()("To", value))
        addresses = list(header.addresses)
    except Exception:  # noqa: BLE001 - the parser raises several kinds on bad input
        addresses = []
    if (
        len(addresses) != 1
        or not addresses[0].username
        or not addresses[0].domain
        or getattr(header, "defects", None)
    ):
        raise MailError(
            f"not an e-mail address: {value!r}",
            location=Location(option),
            hint="write name@example.org or 'Name <name@example.org>'",
        )
    address = addresses[0]  # a non-ASCII mailbox name is a defect of the parser above
    if not address.domain.isascii():
        # an internationalised domain goes into the header as its IDNA (punycode) form;
        # written as is, it would become an invalid encoded word (a@=?utf-8?q?...?=.org)
        try:
            domain = address.domain.encode("idna").decode("ascii")
        except UnicodeError:
            raise MailError(
                f"the domain of {value!r} is not a valid internationalised domain name",
                location=Location(option),
                hint="check the spelling, or write it in its xn-- form",
            ) from None
        address = Address(address.display_name, address.username, domain)
    return address
