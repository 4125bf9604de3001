"""Orchestration of the report: configuration, papermill execution, HTML/PDF/email
export and the archive folder; plus the plain-text views of the CLI."""

__all__: list[str] = []
