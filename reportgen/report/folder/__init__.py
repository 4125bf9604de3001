"""The report folder: writing its files atomically (:mod:`~reportgen.report.folder.output`),
its manifest and safe replacement (:mod:`~reportgen.report.folder.archive`), long tables
beside results.json (:mod:`~reportgen.report.folder.tables`), checking a folder
(:mod:`~reportgen.report.folder.verify`) and reading one back
(:mod:`~reportgen.report.folder.reader`)."""
