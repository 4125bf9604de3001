"""What the report's parts are made of: HTML building blocks and charts
(:mod:`~reportgen.report.render.html`), and the sentences read off the ledger: claims,
findings and release decisions, ranking and power wording."""
