"""JSON Schemas of reportgen's outputs (package data)."""
