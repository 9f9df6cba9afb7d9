"""Whether the gripper holds the object, from the monitor's records: one bit for any node.

True from a ``grasp`` until the object slips out, flies apart, the trial ends or the
gripper releases it; nothing before the first grasp.
"""

from __future__ import annotations

#: Records that end a hold.
LET_GO = ('slip_out', 'flying_apart', 'trial_start', 'trial_end', 'release')


class Holding:
    """The hold as the monitor's records say it.

    Attributes:
        holding: the object is held now.
    """

    def __init__(self) -> None:
        self.holding = False

    def update(self, kind: str) -> bool | None:
        """Take one record's kind; return the new value if it changed, else None.

        Args:
            kind: a monitor record's kind (``grasp``, ``slip_out``, ``trial_end``, ...),
                or ``release``: the gripper opened.
        """
        value = True if kind == 'grasp' else False if kind in LET_GO else self.holding
        if value == self.holding:
            return None
        self.holding = value
        return value
