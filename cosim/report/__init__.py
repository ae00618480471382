"""`cosim report`: a self-contained HTML report (and PNGs) from a run or sweep directory."""

from cosim.report.writer import write_report

__all__ = ["write_report"]
