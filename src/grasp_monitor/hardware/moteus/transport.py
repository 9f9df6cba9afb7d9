"""The CAN-FD transport of a bank of moteus controllers: each controller routed to its bus."""

from __future__ import annotations

from typing import Any

from grasp_monitor.core.errors import ConfigError, HardwareError
from grasp_monitor.hardware.moteus.config import MoteusConfig
import moteus


def make_transport(config: MoteusConfig) -> Any:
    """Open the transport ``config`` names (each controller routed to its bus).

    Raises:
        HardwareError: the transport's package or device is missing.
    """
    if config.transport == 'pi3hat':
        try:
            import moteus_pi3hat
        except ImportError:
            raise HardwareError("transport 'pi3hat' needs the moteus-pi3hat package "
                                '(Raspberry Pi only): pip install moteus-pi3hat') from None
        bus_map: dict[int, list[int]] = {}
        for servo_id, bus in zip(config.ids, config.buses):  # type: ignore[call-overload]
            bus_map.setdefault(bus, []).append(servo_id)
        return moteus_pi3hat.Pi3HatRouter(servo_bus_map=bus_map)
    try:
        if config.transport == 'fdcanusb':
            paths = config.fdcanusb_paths or tuple(moteus.FdcanusbDevice.detect_fdcanusbs()[:1])
            if not paths:
                raise HardwareError('no fdcanusb found: plug one in or set fdcanusb_paths')
            devices = [moteus.FdcanusbDevice(path) for path in paths]
        else:
            devices = [moteus.PythonCanDevice(interface='socketcan', channel=channel)
                       for channel in config.socketcan_channels]
    except HardwareError:
        raise
    except Exception as error:
        raise HardwareError(
            f'cannot open the {config.transport} transport: {type(error).__name__}: {error}'
        ) from error
    return routed_transport(config, devices)


def routed_transport(config: MoteusConfig, devices: list[Any]) -> Any:
    """Return a ``moteus.Transport`` that sends each controller's frames to its bus.

    Controller ``i`` goes to ``devices[buses[i] - 1]``, so the library never has to
    discover which bus an id lives on.

    Raises:
        ConfigError: fewer devices than buses.
    """
    needed = max(config.buses)  # type: ignore[type-var]
    if len(devices) < needed:
        raise ConfigError(f'buses go up to {needed}, but only {len(devices)} devices were given')
    routing = {moteus.DeviceAddress(can_id=servo_id): devices[bus - 1]
               for servo_id, bus in zip(config.ids, config.buses)}  # type: ignore[call-overload]
    return moteus.Transport(devices, routing_table=routing)


def query_resolution() -> Any:
    """Return what the controllers are asked for: the library's defaults, finer V and °C."""
    resolution = moteus.QueryResolution()
    # 0.1 V and 0.1 °C instead of the default int8 steps of 0.5 V and 1 °C.
    resolution.voltage = moteus.INT16
    resolution.temperature = moteus.INT16
    return resolution
