"""Pure statistical computation: numpy arrays in, frozen result objects out.

No I/O, no pandas parsing, no Altair or papermill here (DESIGN.md, "Layers").
"""

__all__: list[str] = []
