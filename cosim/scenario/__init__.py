"""Scenario files: the typed specification of a run, loading and overrides, checks, start layouts,
the YAML-to-dataclass schema, and where controller classes named in a scenario are looked up."""
