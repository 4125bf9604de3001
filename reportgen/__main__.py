"""``python -m reportgen`` runs the command line."""

from reportgen.cli import main_entry

main_entry()
