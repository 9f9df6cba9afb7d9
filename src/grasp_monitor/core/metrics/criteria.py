"""Grasp criteria (rostok's ``criterion_calculation``) and their weighted total.

Each criterion is a reward in [0, 1] computed from a :class:`TrialRecord` and its
events; ``epsilon`` (the grasp quality held after the grasp) is ours, weighted 0 by
default so the total is rostok's. ``k`` is the sample the grasp fired on: rostok reads index
``grasp_step + 1`` of a storage whose index 0 is the initial state, which is
the reading taken after the grasp step, the same sample. We find it by the
grasp event's time stamp, so a record kept at another rate than the monitor
(a metrics node) still finds it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
import math
from types import MappingProxyType
from typing import Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.metrics.trial import TrialRecord
import numpy as np

#: The criteria, in report order.
CRITERIA = (
    'time', 'force', 'object_cog', 'instant_force', 'instant_contacting_link', 'grasp_time',
    'final_position', 'epsilon',
)
#: Decimals of the partial rewards in reports (rostok rounds to 3).
REPORT_DECIMALS = 3
#: What the grasp time criterion measures the grasp time against (``CriteriaConfig``).
GRASP_TIME_SPANS = ('grasp_limit', 'trial_duration')


@dataclass(frozen=True)
class CriteriaConfig:
    """Constants of the criteria.

    Attributes:
        trial_duration: T of the time criterion, the trial's planned length, s.
        grasp_limit: the grasp event's limit, s (grasp time criterion).
        final_position_ref: displacement that scores 0, m (default 0.3).
        force_cutoff: samples with a net force at or above it are dropped, N
            (default 100).
        grasp_time_span: the span the grasp time criterion measures the grasp
            time against: ``grasp_limit`` (``grasp_limit``) or
            ``trial_duration`` (``trial_duration``).
        time_span: T of the time criterion: ``trial_duration`` (``trial_duration``,
            rostok's examples) or ``grasp_limit`` (``grasp_limit``, what rostok's
            pipeline passes).
    """

    trial_duration: float = 10.0
    grasp_limit: float = 5.0
    final_position_ref: float = 0.3
    force_cutoff: float = 100.0
    grasp_time_span: str = GRASP_TIME_SPANS[0]
    time_span: str = 'trial_duration'

    def __post_init__(self) -> None:
        for name in ('grasp_time_span', 'time_span'):
            if getattr(self, name) not in GRASP_TIME_SPANS:
                raise ConfigError(f'{name} must be one of {", ".join(GRASP_TIME_SPANS)}, '
                                  f'got {getattr(self, name)!r}')
        for item in fields(self):
            if item.name in ('grasp_time_span', 'time_span'):
                continue
            value = getattr(self, item.name)
            if not (value > 0 and math.isfinite(value)):
                raise ConfigError(f'{item.name} must be finite and > 0, got {value}')


@dataclass(frozen=True)
class CriteriaWeights:
    """Weight of each criterion in the total (rostok's 1, ``epsilon`` 0 by default).

    Attributes:
        time, force, object_cog, instant_force, instant_contacting_link,
        grasp_time, final_position, epsilon: finite weights >= 0.
    """

    time: float = 1.0
    force: float = 1.0
    object_cog: float = 1.0
    instant_force: float = 1.0
    instant_contacting_link: float = 1.0
    grasp_time: float = 1.0
    final_position: float = 1.0
    epsilon: float = 0.0

    def __post_init__(self) -> None:
        for name in CRITERIA:
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ConfigError(f'weight {name} must be finite and >= 0, got {value}')

    def as_dict(self) -> dict[str, float]:
        """Return ``{criterion: weight}`` in :data:`CRITERIA` order."""
        return {name: float(getattr(self, name)) for name in CRITERIA}


def grasp_index(record: TrialRecord) -> int | None:
    """Return k, the row of the sample the grasp fired on; None without a grasp."""
    grasp = record.first_event('grasp')
    return record.index_at(grasp.time_s) if grasp is not None else None


def _timed_out(record: TrialRecord) -> bool:
    return record.first_event('contact_timeout') is not None


def time_criterion(record: TrialRecord, config: CriteriaConfig) -> float:
    """1 with a grasp; 0 after a contact timeout; else ``min(1, (t_end / T)²)``.

    ``t_end`` is the trial time of the last sample, ``T`` the planned trial
    duration or, with ``time_span: grasp_limit``, the grasp limit (clipped, unlike
    rostok: docs/deviations.md).
    """
    if record.first_event('grasp') is not None:
        return 1.0
    if _timed_out(record) or len(record) == 0:
        return 0.0
    t_end_s = float(record.trial_time_s[-1])
    span_s = config.grasp_limit if config.time_span == 'grasp_limit' \
        else config.trial_duration
    return min(1.0, (t_end_s / span_s) ** 2)


def force_criterion(record: TrialRecord, config: CriteriaConfig) -> float:
    """``1 / (1 + mean F)`` over samples with robot contact, F = ‖net contact force‖ in N.

    Samples with ``F >= force_cutoff`` are dropped; 0 when none remain or the
    contact timed out. Only robot-object contacts count (the record holds no
    others; docs/deviations.md).
    """
    if _timed_out(record):
        return 0.0
    with_contact = record.contact_count > 0
    magnitudes_n = np.linalg.norm(record.net_force_on_object_in_world[with_contact], axis=1)
    kept_n = magnitudes_n[magnitudes_n < config.force_cutoff]
    return float(1.0 / (1.0 + kept_n.mean())) if kept_n.size else 0.0


def object_cog_criterion(record: TrialRecord) -> float:
    """``1 / (1 + d)``, d the distance (m) from the object COG to the mean contact point at k.

    0 with no grasp, and 0 when the sample at k has no contact
    (docs/deviations.md).
    """
    k = grasp_index(record)
    if k is None or record.contact_count[k] == 0:
        return 0.0
    distance_m = float(np.linalg.norm(
        record.object_position_in_world[k] - record.mean_contact_point_in_world[k]))
    return 1.0 / (1.0 + distance_m)


def instant_force_criterion(record: TrialRecord) -> float:
    """``1 / (1 + σ)``, σ the population std (N) of the contact force magnitudes at k.

    0 with no grasp or no contact at k. Of the force magnitudes only (rostok's
    differ: docs/deviations.md).
    """
    k = grasp_index(record)
    if k is None or record.contact_count[k] == 0:
        return 0.0
    return 1.0 / (1.0 + float(record.contact_force_std_n[k]))


def instant_contacting_link_criterion(record: TrialRecord) -> float:
    """Fraction of the robot bodies touching the object at k (palm counted in both).

    0 with no grasp; as rostok.
    """
    k = grasp_index(record)
    if k is None:
        return 0.0
    return float(np.count_nonzero(record.body_mask[k])) / record.n_bodies


def grasp_time_criterion(record: TrialRecord, config: CriteriaConfig) -> float:
    """``1 - t_grasp / span``, clipped to [0, 1]; 0 with no grasp.

    ``span`` is ``grasp_limit`` or ``trial_duration`` (``grasp_time_span``):
    ``(N - grasp_step) / N`` with ``N = span / dt``, in time, which does not
    need a fixed step (docs/deviations.md). Clipped because stale input pauses
    the grasp limit, so a grasp can come later than ``grasp_limit``.
    """
    grasp = record.first_event('grasp')
    if grasp is None:
        return 0.0
    span_s = config.grasp_limit if config.grasp_time_span == 'grasp_limit' \
        else config.trial_duration
    return min(1.0, max(0.0, 1.0 - grasp.trial_time_s / span_s))


def final_position_criterion(record: TrialRecord, config: CriteriaConfig) -> float:
    """``1 - d / ref`` if ``d <= ref`` else 0, d = ‖COG(k) − COG(end)‖ in m.

    Only with a grasp and no slip-out (else 0); as rostok.
    """
    k = grasp_index(record)
    if k is None or record.first_event('slip_out') is not None:
        return 0.0
    positions = record.object_position_in_world
    distance_m = float(np.linalg.norm(positions[k] - positions[-1]))
    if distance_m > config.final_position_ref:
        return 0.0
    return 1.0 - distance_m / config.final_position_ref


def epsilon_criterion(record: TrialRecord) -> float:
    """Mean grasp quality (epsilon) over the samples from the grasp on, clipped to [0, 1].

    0 with no grasp or no epsilon computed; samples without one are left out.
    """
    k = grasp_index(record)
    if k is None:
        return 0.0
    values = record.epsilon[k:]
    values = values[np.isfinite(values)]
    return float(min(1.0, max(0.0, values.mean()))) if values.size else 0.0


@dataclass(frozen=True)
class CriteriaReport:
    """The partial rewards, their weights and the weighted total.

    Attributes:
        partials: criterion -> reward, unrounded, in :data:`CRITERIA` order.
        weights: the weights used.
        total: ``Σ wᵢ rᵢ`` over the unrounded partials.
    """

    partials: Mapping[str, float]
    weights: CriteriaWeights
    total: float

    def __post_init__(self) -> None:
        unknown = sorted(set(self.partials) - set(CRITERIA))
        if unknown:
            raise ConfigError(
                f'unknown criteria {", ".join(unknown)}; valid: {", ".join(CRITERIA)}')
        object.__setattr__(self, 'partials', MappingProxyType(
            {name: float(self.partials[name]) for name in CRITERIA if name in self.partials}))

    def __deepcopy__(self, memo: dict) -> CriteriaReport:
        """Return itself: a report never changes (and a read-only mapping cannot be copied)."""
        return self

    def rounded(self) -> dict[str, float]:
        """Return each partial and the total rounded to 3 decimals, the total under 'total'."""
        values = {name: round(value, REPORT_DECIMALS) for name, value in self.partials.items()}
        values['total'] = round(self.total, REPORT_DECIMALS)
        return values

    def as_strings(self) -> dict[str, str]:
        """Return :meth:`rounded` as strings (DiagnosticStatus values)."""
        return {name: repr(value) for name, value in self.rounded().items()}


def evaluate_criteria(
    record: TrialRecord,
    config: CriteriaConfig | None = None,
    weights: CriteriaWeights | None = None,
) -> CriteriaReport:
    """Compute every criterion of ``record`` and the weighted total ``Σ wᵢ rᵢ``.

    The total sums the unrounded partials and is reported as it is (how this
    differs from rostok's ``SimulationReward``: docs/deviations.md).
    """
    config = config if config is not None else CriteriaConfig()
    weights = weights if weights is not None else CriteriaWeights()
    partials = {
        'time': time_criterion(record, config),
        'force': force_criterion(record, config),
        'object_cog': object_cog_criterion(record),
        'instant_force': instant_force_criterion(record),
        'instant_contacting_link': instant_contacting_link_criterion(record),
        'grasp_time': grasp_time_criterion(record, config),
        'final_position': final_position_criterion(record, config),
        'epsilon': epsilon_criterion(record),
    }
    total = sum(weight * partials[name] for name, weight in weights.as_dict().items())
    return CriteriaReport(partials, weights, float(total))
