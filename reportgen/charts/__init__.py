"""Altair chart builders: result objects in, ``alt.Chart`` out; themes applied here."""

__all__: list[str] = []
