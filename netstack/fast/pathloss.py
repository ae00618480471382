"""Path-loss models for the fast backend: received power from distance, and a cut-off range."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SPEED_OF_LIGHT = 299_792_458.0


def friis_loss_db(distance_m: np.ndarray, frequency_hz: float) -> np.ndarray:
    """Free-space loss 20 log10(4 pi d / lambda), with d floored at 1 cm."""
    wavelength = SPEED_OF_LIGHT / frequency_hz
    d = np.maximum(distance_m, 0.01)
    return 20.0 * np.log10(4.0 * math.pi * d / wavelength)


RADIO_HZ = (1e3, 3e11)
"""Carrier frequencies a radio model is for: 1 kHz to 300 GHz."""


def check_frequency(frequency_hz: float) -> None:
    if not RADIO_HZ[0] <= frequency_hz <= RADIO_HZ[1]:
        raise ValueError(f"frequency_hz must be a radio frequency within {RADIO_HZ[0]:g}..{RADIO_HZ[1]:g} Hz, "
                         f"got {frequency_hz:g}")


def check_power(name: str, dbm: float, low: float, high: float) -> None:
    """A power level in dBm within what radios have (e.g. -50 dBm, 10 nW, to 60 dBm, 1 kW, to transmit)."""
    if not low <= dbm <= high:
        raise ValueError(f"{name} must be within {low:g}..{high:g} dBm, got {dbm:g}")


@dataclass(frozen=True)
class LogDistance:
    """L(d) = L0 + 10 n log10(d / d0), with ns-3's LogDistancePropagationLossModel defaults.

    n = 3 and L0 = 46.6777 dB at d0 = 1 m (Friis at 1 m for 5.15 GHz), as in ns-3.
    """

    exponent: float = 3.0
    """The path-loss exponent n (2: free space; 3-4: indoors, cluttered)."""
    reference_loss_db: float = 46.6777
    """The loss L0 at the reference distance."""
    reference_distance_m: float = 1.0
    """The reference distance d0 (m)."""

    def __post_init__(self) -> None:
        if not 0 < self.exponent <= 10:
            raise ValueError(f"exponent must be within (0, 10] (2 free space, 2-6 indoors), got {self.exponent:g}")
        if not self.reference_distance_m > 0:
            raise ValueError(f"reference_distance_m must be > 0 m, got {self.reference_distance_m:g}")

    def loss_db(self, d: np.ndarray) -> np.ndarray:
        d = np.maximum(d, self.reference_distance_m)
        return self.reference_loss_db + 10.0 * self.exponent * np.log10(d / self.reference_distance_m)

    def ignores_threshold(self) -> bool:
        return False

    def max_range_m(self, tx_power_dbm: float, threshold_dbm: float) -> float:
        budget = tx_power_dbm - threshold_dbm - self.reference_loss_db
        return self.reference_distance_m * 10.0 ** (budget / (10.0 * self.exponent))

    def kernel(self) -> tuple[int, float, float, float]:
        """This model for compiled code (netstack.fast.csma_compiled.loss_db)."""
        return 0, self.exponent, self.reference_loss_db, self.reference_distance_m


@dataclass(frozen=True)
class Friis:
    """Free-space propagation at a carrier frequency (2.4 GHz by default)."""

    frequency_hz: float = 2.4e9
    """The carrier frequency (Hz)."""

    def __post_init__(self) -> None:
        check_frequency(self.frequency_hz)

    def loss_db(self, d: np.ndarray) -> np.ndarray:
        return friis_loss_db(d, self.frequency_hz)

    def ignores_threshold(self) -> bool:
        return False

    def max_range_m(self, tx_power_dbm: float, threshold_dbm: float) -> float:
        wavelength = SPEED_OF_LIGHT / self.frequency_hz
        return wavelength / (4.0 * math.pi) * 10.0 ** ((tx_power_dbm - threshold_dbm) / 20.0)

    def kernel(self) -> tuple[int, float, float, float]:
        return 1, self.frequency_hz, 0.0, 0.0


@dataclass(frozen=True)
class UnitDisk:
    """Every node within `range_m` hears the frame, nobody beyond; RSSI is reported from Friis."""

    range_m: float = 30.0
    """The disc's radius (m): every node inside hears, none outside."""
    frequency_hz: float = 2.4e9
    """The carrier frequency of the Friis RSSI reported (Hz)."""

    def __post_init__(self) -> None:
        if not 0 < self.range_m <= 1e7:
            raise ValueError(f"range_m must be > 0 m and at most 1e7 m, got {self.range_m:g}")
        check_frequency(self.frequency_hz)

    def loss_db(self, d: np.ndarray) -> np.ndarray:
        loss = friis_loss_db(d, self.frequency_hz)
        return np.where(d <= self.range_m, loss, np.inf)

    def max_range_m(self, tx_power_dbm: float, threshold_dbm: float) -> float:
        return self.range_m

    def kernel(self) -> tuple[int, float, float, float]:
        return 3, self.range_m, self.frequency_hz, 0.0

    def ignores_threshold(self) -> bool:
        return True


@dataclass(frozen=True)
class TwoRayGround:
    """Friis up to the crossover distance 4 pi ht hr / lambda, then 40 dB/decade with antenna heights.

    Both antennas are `antenna_height_m` above the node position (ns-3's HeightAboveZ).
    """

    frequency_hz: float = 2.4e9
    """The carrier frequency (Hz)."""
    antenna_height_m: float = 1.0
    """Both antennas' height above their node's position (m)."""

    def __post_init__(self) -> None:
        check_frequency(self.frequency_hz)
        if not 0 < self.antenna_height_m <= 1e5:
            raise ValueError(f"antenna_height_m must be > 0 m and at most 1e5 m, got {self.antenna_height_m:g}")

    def loss_db(self, d: np.ndarray) -> np.ndarray:
        h = self.antenna_height_m
        wavelength = SPEED_OF_LIGHT / self.frequency_hz
        crossover = 4.0 * math.pi * h * h / wavelength
        d = np.maximum(d, 0.01)
        two_ray = 40.0 * np.log10(d) - 20.0 * np.log10(h * h)
        return np.where(d <= crossover, friis_loss_db(d, self.frequency_hz), two_ray)

    def ignores_threshold(self) -> bool:
        return False

    def max_range_m(self, tx_power_dbm: float, threshold_dbm: float) -> float:
        budget = tx_power_dbm - threshold_dbm
        friis = Friis(self.frequency_hz).max_range_m(tx_power_dbm, threshold_dbm)
        h = self.antenna_height_m
        crossover = 4.0 * math.pi * h * h / (SPEED_OF_LIGHT / self.frequency_hz)
        if friis <= crossover:
            return friis
        return 10.0 ** ((budget + 20.0 * math.log10(h * h)) / 40.0)

    def kernel(self) -> tuple[int, float, float, float]:
        return 2, self.frequency_hz, self.antenna_height_m, 0.0


PATHLOSS_MODELS: dict[str, type] = {"log_distance": LogDistance, "friis": Friis, "two_ray": TwoRayGround, "unit_disk": UnitDisk}
