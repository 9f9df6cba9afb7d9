"""How a pad turns contacts into taxel values: ``TactileConfig`` and its choices."""

from __future__ import annotations

from dataclasses import dataclass, field
import math

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.noise import NoiseConfig

#: Touch functions and the number of values each gives per taxel.
TOUCH_FUNCTIONS = {'normal': 1, 'normal_force': 3, 'force_vector': 3, 'force_vector_global': 3}
#: Touch functions whose values are in the pad frame (a tactile cloud's frame).
PAD_FRAME_TOUCH_FUNCTIONS = ('normal', 'normal_force', 'force_vector')
#: Layout modes.
LAYOUT_MODES = ('primitives', 'mesh')
#: Response functions.
RESPONSE_FUNCTIONS = ('nearest', 'spread_linear')
#: ``spread_linear`` reaches this many resolutions from the contact.
SPREAD_RADIUS_RESOLUTIONS = 2.0
#: Frames of the pad-frame vector touch functions (``TactileConfig.force_frame``).
FORCE_FRAMES = ('pad', 'geom')
#: Where a contact acts on the taxels (``TactileConfig.contact_point``).
CONTACT_POINTS = ('midpoint', 'surface')


@dataclass(frozen=True)
class TactileConfig:
    """How a pad turns contacts into taxel values.

    Attributes:
        touch: one of ``TOUCH_FUNCTIONS``.
        response: one of ``RESPONSE_FUNCTIONS``.
        resolution_m: taxel spacing that sets the spread radius
            (2 x resolution), m; None takes the layout's.
        noise: noise added to every value, clamped to the touch function's
            range ([0, inf) for ``normal``, unbounded otherwise).
        force_frame: frame of the ``normal_force`` and ``force_vector`` values:
            the pad body's (``pad``), or that of the geom each taxel lies on
            (``geom``).
        contact_point: where a contact acts: MuJoCo's contact point, midway
            between the two surfaces (``midpoint``), or that point moved along
            the normal onto the pad's surface by half the penetration
            (``surface``).
        slip: also give each taxel's slip (``TactilePad.slip``): the
            tangential velocity of the touching surface relative to the pad,
            in the pad frame, m/s, shared among the taxels with the force's
            weights and averaged by normal force.
    """

    touch: str = 'force_vector'
    response: str = 'spread_linear'
    resolution_m: float | None = None
    noise: NoiseConfig = field(default_factory=NoiseConfig)
    force_frame: str = FORCE_FRAMES[0]
    contact_point: str = CONTACT_POINTS[0]
    slip: bool = False

    def __post_init__(self) -> None:
        for name, choices in (('force_frame', FORCE_FRAMES), ('contact_point', CONTACT_POINTS)):
            if getattr(self, name) not in choices:
                raise ConfigError(f'{name} {getattr(self, name)!r} is not one of '
                                  f'{", ".join(choices)}')
        if self.touch not in TOUCH_FUNCTIONS:
            raise ConfigError(
                f'touch function {self.touch!r} is not one of {", ".join(TOUCH_FUNCTIONS)}')
        if self.response not in RESPONSE_FUNCTIONS:
            raise ConfigError(f'response function {self.response!r} is not one of '
                              f'{", ".join(RESPONSE_FUNCTIONS)}')
        if self.resolution_m is not None and not (
                math.isfinite(self.resolution_m) and self.resolution_m > 0):
            raise ConfigError(
                f"resolution_m must be a finite number > 0 (or None for the layout's), "
                f'got {self.resolution_m}')
        if not isinstance(self.slip, bool):
            raise ConfigError(f'slip must be a bool, got {type(self.slip).__name__} {self.slip!r}')
        if not isinstance(self.noise, NoiseConfig):
            raise ConfigError(f'noise must be a NoiseConfig, got {type(self.noise).__name__}')
