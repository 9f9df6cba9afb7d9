"""The one exception tree of grasp_monitor."""


class GraspMonitorError(Exception):
    """Base of every error grasp_monitor raises on purpose."""


class ConfigError(GraspMonitorError, ValueError):
    """A configuration value is invalid; the message says what is valid."""


class CommandError(GraspMonitorError, ValueError):
    """A command (servo, service request) is refused; the message says why.

    Attributes:
        kind: a short category for counters ('wrong_length', 'unknown_joint',
            'not_finite', 'out_of_range', ...).
    """

    def __init__(self, message: str, kind: str = 'invalid') -> None:
        super().__init__(message)
        self.kind = kind


class InputError(GraspMonitorError, ValueError):
    """An input message (a sensor reading: its fields, its bytes) is refused; the message says why.

    Attributes:
        kind: a short category for counters ('wrong_layout', 'wrong_length', 'not_finite',
            'malformed', ...).
    """

    def __init__(self, message: str, kind: str = 'invalid') -> None:
        super().__init__(message)
        self.kind = kind


class SimulationError(GraspMonitorError, RuntimeError):
    """The simulation diverged or cannot go on."""


class HardwareError(GraspMonitorError, RuntimeError):
    """A hardware transport cannot be opened or used; the message says what is needed."""
