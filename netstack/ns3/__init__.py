"""The ns-3 network backend: real 802.11 and 802.15.4 MAC/PHY models driven in process.

`config` is importable without ns-3 (scenario validation stays fast); `backend` imports ns-3
(about 6 s and 550 MB, once per process; netstack.ns3.loader) on first use.
"""
