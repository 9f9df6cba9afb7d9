"""What the simulated and the moteus servos both offer a node, as upkie's backend interface.

``sim.backend.Simulator`` and ``hardware.moteus.MoteusServos`` implement it. Stopping is
not part of it: the moteus servos stop until resumed, while the simulator's servos stop
only on a reset, which rewinds the whole scene.
"""

from __future__ import annotations

import abc

from grasp_monitor.core.servo.bank import ServoObservation
from grasp_monitor.core.servo.command import ServoCommand
from grasp_monitor.core.servo.config import ServoConfig
from grasp_monitor.core.values import JointStates


class ServoBackend(abc.ABC):
    """Servos that take a ``ServoCommand`` and report their joints."""

    @property
    @abc.abstractmethod
    def servo_config(self) -> ServoConfig:
        """The joints and the defaults a named command fills in (``ServoCommand.from_named``)."""

    @property
    def joints(self) -> tuple[str, ...]:
        """Joint names, in command and observation order."""
        return self.servo_config.joints

    @property
    @abc.abstractmethod
    def command(self) -> ServoCommand | None:
        """The latest command accepted, as applied (None before the first or since a reset)."""

    @abc.abstractmethod
    def set_command(self, command: ServoCommand,
                    stamp_s: float | None = None) -> ServoCommand | None:
        """Accept a validated command now; it feeds the watchdog.

        Args:
            command: one target per servo.
            stamp_s: when the sender stamped it, on the backend's clock, s (None: unstamped);
                a backend whose clock is not the sender's ignores it.

        Returns:
            The command as it will be applied, if the backend limits it (else None).

        Raises:
            CommandError: the command cannot be applied (a wrong number of servos, ...).
        """

    @abc.abstractmethod
    def joint_states(self) -> JointStates | None:
        """Return position, velocity and torque of every joint (None before the first)."""

    @abc.abstractmethod
    def servo_observation(self) -> ServoObservation | None:
        """Return the servos' telemetry (None before the first)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the servos (moteus: a final stop); a second call does nothing."""
