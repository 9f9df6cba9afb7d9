"""Topic names as a node's namespace resolves them."""

from __future__ import annotations

from rclpy.node import Node


def resolved(node: Node, names: list[str]) -> tuple[str, ...]:
    """Resolve topic names against the node's namespace ('' entries are dropped)."""
    return tuple(node.resolve_topic_name(name) for name in names if name)
