"""Subscriptions whose lost messages are counted, under either of rclpy's executors."""

from __future__ import annotations

import inspect
from typing import Callable

from grasp_monitor.nodes.lost_inputs import lost_inputs
from rclpy.node import Node


class _WithInfo:
    """A subscription callback that takes the message and its info, from either executor.

    rclpy's executors call ``callback(msg, info)``; its EventsExecutor (7.1) calls
    ``callback((msg, info))``. The signature asks rclpy for the info.
    """

    __signature__ = inspect.Signature([
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY) for name in ('msg', 'info')])

    def __init__(self, on_message: Callable) -> None:
        self.on_message = on_message

    def __call__(self, *args) -> None:
        self.on_message(*(args if len(args) == 2 else args[0]))


def subscribe(node: Node, msg_type, topic: str, callback: Callable, qos, **kwargs):
    """``node.create_subscription`` whose lost messages are counted (``lost_inputs``)."""
    lost = lost_inputs(node)
    name = topic.lstrip('/')

    def on_message(msg, info) -> None:
        lost.on_message(name, info.get('publication_sequence_number'))
        callback(msg)
    return node.create_subscription(msg_type, topic, _WithInfo(on_message), qos,
                                    event_callbacks=lost.events(name), **kwargs)
