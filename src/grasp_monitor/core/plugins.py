"""Sensors and motors as plugins registered by type name (FARSA's scheme).

A type registers under a kind (``'sensor'`` or ``'motor'``) and a name, with
the parameters it takes described by ``ParameterSpec`` values (name, value
type, default, range, description). A configuration mapping ``{'type': name,
parameter: value, ...}`` then creates an instance; every value is checked against its
spec first, so a typo or an out-of-range value fails at construction with
the valid choices listed.

Registering is one decorator on the factory::

    @register_plugin('sensor', 'thermometer', parameters=(
        ParameterSpec('rate_hz', float, 100.0, (1.0, 1000.0), 'Sampling rate, Hz.'),),
        description='A temperature probe.')
    def make_thermometer(parameters, **context):
        return Thermometer(parameters['rate_hz'])

The factory receives the checked parameters (defaults filled in) and the
run-time objects the caller passes as keyword arguments (a model's geoms, a
servo bank...). Built-in types live in ``BUILTIN_MODULES`` and third-party
packages add theirs through the ``grasp_monitor.plugins`` entry-point group:
an entry point may name a ``PluginType``, a callable taking the registry, or
a module that registers on import. Both are loaded lazily, on the first
look-up; a broken entry point is logged and listed, never fatal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import entry_points
import inspect
import logging
import math
import numbers
from typing import Any, Callable, Iterable, Mapping

from grasp_monitor.core.errors import ConfigError

_log = logging.getLogger(__name__)

#: Kinds of plugin.
PLUGIN_KINDS = ('sensor', 'motor')
#: Types a parameter may have (those a ROS parameter can hold as a scalar).
PARAMETER_TYPES = (bool, int, float, str)
#: Entry-point group third-party packages register under.
ENTRY_POINT_GROUP = 'grasp_monitor.plugins'
#: Modules that register the built-in types when imported.
BUILTIN_MODULES = ('grasp_monitor.core.tactile.plugin', 'grasp_monitor.sim.sensors')
#: Key of a configuration mapping that names the type.
TYPE_KEY = 'type'

Factory = Callable[..., Any]


def _type_name(value: object) -> str:
    return type(value).__name__


@dataclass(frozen=True)
class ParameterSpec:
    """One parameter of a plugin type.

    Attributes:
        name: parameter name (a Python identifier, not ``'type'``).
        value_type: one of ``bool``, ``int``, ``float``, ``str``.
        default: value used when a configuration omits it; must pass the checks.
        value_range: for ``int``/``float`` an inclusive ``(low, high)`` (use ±inf for
            an open end); for ``str`` the tuple of allowed values; None for no limit.
        description: one line saying what it does, with its unit.
    """

    name: str
    value_type: type
    default: Any
    value_range: tuple | None = None
    description: str = ''

    def __post_init__(self) -> None:
        if not (isinstance(self.name, str) and self.name.isidentifier()) or \
                self.name == TYPE_KEY:
            raise ConfigError(
                f'parameter name must be an identifier other than {TYPE_KEY!r}, '
                f'got {self.name!r}')
        if self.value_type not in PARAMETER_TYPES:
            valid = ', '.join(t.__name__ for t in PARAMETER_TYPES)
            raise ConfigError(
                f'parameter {self.name!r} has type {self.value_type!r}; valid types: {valid}')
        if self.value_range is not None:
            limits = tuple(self.value_range)
            if self.value_type in (int, float):
                if len(limits) != 2 or not all(
                        isinstance(v, numbers.Real) and not isinstance(v, bool)
                        and not math.isnan(v) for v in limits) or limits[0] > limits[1]:
                    raise ConfigError(
                        f'range of numeric parameter {self.name!r} must be (low, high) '
                        f'with low <= high, got {self.value_range!r}')
            elif self.value_type is str:
                if not limits or not all(isinstance(v, str) for v in limits):
                    raise ConfigError(
                        f'range of str parameter {self.name!r} must be a non-empty tuple of '
                        f'allowed strings, got {self.value_range!r}')
            else:
                raise ConfigError(f'bool parameter {self.name!r} takes no range')
            object.__setattr__(self, 'range', limits)
        try:
            default = self.check(self.default)
        except ConfigError as error:
            raise ConfigError(f'bad default: {error}') from None
        object.__setattr__(self, 'default', default)

    def check(self, value: Any, owner: str = '') -> Any:
        """Return ``value`` converted to this parameter's type, if it is valid.

        ``int`` values are accepted for a ``float`` parameter; ``bool`` is
        never taken for a number.

        Args:
            value: the configured value.
            owner: what to name in an error, e.g. ``"sensor 'tactile_array'"``.

        Raises:
            ConfigError: wrong type or out of range, saying what is valid.
        """
        where = f'parameter {self.name!r}' + (f' of {owner}' if owner else '')
        is_bool = isinstance(value, bool) or _type_name(value) == 'bool_'
        if self.value_type is bool:
            if not is_bool:
                raise ConfigError(f'{where} must be a bool, got {_type_name(value)} {value!r}')
            return bool(value)
        if self.value_type is str:
            if not isinstance(value, str):
                raise ConfigError(f'{where} must be a str, got {_type_name(value)} {value!r}')
            if self.value_range is not None and value not in self.value_range:
                raise ConfigError(
                    f'{where} must be one of {", ".join(self.value_range)}, got {value!r}')
            return value
        if self.value_type is int:
            ok = isinstance(value, numbers.Integral) and not is_bool
        else:
            ok = isinstance(value, numbers.Real) and not is_bool
        if not ok:
            raise ConfigError(
                f'{where} must be {"an int" if self.value_type is int else "a float"}, '
                f'got {_type_name(value)} {value!r}')
        value = self.value_type(value)
        if math.isnan(value):
            raise ConfigError(f'{where} must be a number, got nan')
        if self.value_range is not None:
            low, high = self.value_range
            if not low <= value <= high:
                raise ConfigError(f'{where} must be in [{low}, {high}], got {value!r}')
        return value

    def describe(self) -> str:
        """Return one line: name, type, default, range and description."""
        text = f'{self.name}: {self.value_type.__name__} = {self.default!r}'
        if self.value_range is not None and self.value_type is str:
            text += f', one of {", ".join(self.value_range)}'
        elif self.value_range is not None:
            text += f', in [{self.value_range[0]}, {self.value_range[1]}]'
        return text + (f'. {self.description}' if self.description else '')


@dataclass(frozen=True)
class PluginType:
    """A registered sensor or motor type.

    Attributes:
        kind: one of ``PLUGIN_KINDS``.
        name: type name configurations refer to.
        factory: ``factory(parameters: dict, **context) -> instance``.
        parameters: the parameters it takes, with unique names.
        description: one line saying what it is.
    """

    kind: str
    name: str
    factory: Factory
    parameters: tuple[ParameterSpec, ...] = ()
    description: str = ''

    def __post_init__(self) -> None:
        if self.kind not in PLUGIN_KINDS:
            raise ConfigError(
                f'plugin kind {self.kind!r} is not one of {", ".join(PLUGIN_KINDS)}')
        if not (isinstance(self.name, str) and self.name):
            raise ConfigError(f'plugin name must be a non-empty str, got {self.name!r}')
        if not callable(self.factory):
            raise ConfigError(f'factory of {self.kind} {self.name!r} is not callable')
        parameters = tuple(self.parameters)
        if not all(isinstance(p, ParameterSpec) for p in parameters):
            raise ConfigError(f'parameters of {self.kind} {self.name!r} must be ParameterSpec')
        names = [p.name for p in parameters]
        if len(set(names)) != len(names):
            raise ConfigError(f'parameter names of {self.kind} {self.name!r} repeat: {names}')
        object.__setattr__(self, 'parameters', parameters)

    @property
    def label(self) -> str:
        """``"<kind> '<name>'"``, as errors name it."""
        return f'{self.kind} {self.name!r}'

    def resolve(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """Return every parameter's checked value, defaults filled in.

        Args:
            config: parameter values; a ``'type'`` key is ignored.

        Raises:
            ConfigError: unknown parameter, wrong type or out of range.
        """
        specs = {p.name: p for p in self.parameters}
        unknown = sorted(set(config) - set(specs) - {TYPE_KEY})
        if unknown:
            raise ConfigError(
                f'unknown parameter {unknown[0]!r} for {self.label}; valid parameters: '
                f'{", ".join(specs) or "(none)"}')
        return {name: spec.check(config[name], self.label) if name in config else spec.default
                for name, spec in specs.items()}

    def describe(self) -> str:
        """Several lines: the type, then one line per parameter."""
        head = f'{self.kind} {self.name}'
        lines = [head + (f': {self.description}' if self.description else '')]
        lines += [f'  {p.describe()}' for p in self.parameters] or ['  (no parameters)']
        return '\n'.join(lines)


@dataclass
class PluginRegistry:
    """Plugin types by kind and name, with lazy loading of built-ins and entry points.

    Args:
        group: entry-point group to load third-party types from ('' for none).
        builtin_modules: modules imported on first look-up (they register on
            import, on the default registry).
    """

    group: str = ENTRY_POINT_GROUP
    builtin_modules: tuple[str, ...] = ()
    _types: dict[tuple[str, str], PluginType] = field(default_factory=dict, init=False)
    _errors: list[str] = field(default_factory=list, init=False)
    _loaded: bool = field(default=False, init=False)

    def add(self, plugin: PluginType) -> PluginType:
        """Register ``plugin``; a kind and name taken already is a ConfigError."""
        key = (plugin.kind, plugin.name)
        if key in self._types and self._types[key] is not plugin:
            raise ConfigError(f'{plugin.label} is registered already')
        self._types[key] = plugin
        return plugin

    def register(self, kind: str, name: str, parameters: Iterable[ParameterSpec] = (),
                 description: str = '') -> Callable[[Factory], Factory]:
        """Return a decorator registering its factory as a type; the factory is unchanged."""
        def decorate(factory: Factory) -> Factory:
            self.add(PluginType(kind, name, factory, tuple(parameters), description))
            return factory
        return decorate

    def load(self) -> None:
        """Import the built-in modules and the entry points, once."""
        if self._loaded:
            return
        self._loaded = True
        for module in self.builtin_modules:
            import_module(module)
        if not self.group:
            return
        for point in entry_points(group=self.group):
            try:
                target = point.load()
                if isinstance(target, PluginType):
                    self.add(target)
                elif inspect.ismodule(target):
                    pass  # it registered itself on import
                elif callable(target):
                    target(self)
                else:
                    raise ConfigError(
                        f'{_type_name(target)} is not a PluginType, a callable or a module')
            except Exception as error:  # third-party code may raise anything
                message = f'{point.name} = {point.value}: {type(error).__name__}: {error}'
                self._errors.append(message)
                _log.warning('plugin entry point %s is broken and was skipped', message)

    @property
    def load_errors(self) -> tuple[str, ...]:
        """The entry points that failed to load, with their errors."""
        self.load()
        return tuple(self._errors)

    def types(self, kind: str | None = None) -> tuple[PluginType, ...]:
        """Return every registered type (of ``kind`` when given), by kind and name."""
        self.load()
        return tuple(self._types[key] for key in sorted(self._types)
                     if kind is None or key[0] == kind)

    def get(self, kind: str, name: str) -> PluginType:
        """Return the type ``name`` of ``kind``.

        Raises:
            ConfigError: unknown kind or name, listing the valid ones.
        """
        if kind not in PLUGIN_KINDS:
            raise ConfigError(f'plugin kind {kind!r} is not one of {", ".join(PLUGIN_KINDS)}')
        self.load()
        try:
            return self._types[(kind, name)]
        except KeyError:
            valid = ', '.join(p.name for p in self.types(kind)) or '(none)'
            raise ConfigError(f'unknown {kind} type {name!r}; valid {kind} types: {valid}') \
                from None

    def create(self, kind: str, config: Mapping[str, Any], **context: Any) -> Any:
        """Create an instance from ``{'type': name, parameter: value, ...}``.

        Args:
            kind: ``'sensor'`` or ``'motor'``.
            config: the type name under ``'type'`` and parameter values.
            **context: run-time objects passed to the factory as they are.

        Raises:
            ConfigError: missing or unknown type, unknown parameter, wrong
                type, out-of-range value, each listing what is valid.
        """
        if TYPE_KEY not in config:
            valid = ', '.join(p.name for p in self.types(kind)) or '(none)'
            raise ConfigError(f'a {kind} configuration needs a {TYPE_KEY!r}; valid: {valid}')
        plugin = self.get(kind, config[TYPE_KEY])
        return plugin.factory(plugin.resolve(config), **context)

    def describe(self) -> str:
        """Return every registered type with its parameters, then broken entry points."""
        blocks = [plugin.describe() for plugin in self.types()] or ['(no plugin types)']
        if self.load_errors:
            blocks.append('broken entry points (skipped):\n' + '\n'.join(
                f'  {message}' for message in self.load_errors))
        return '\n'.join(blocks)


#: The registry the package uses.
REGISTRY = PluginRegistry(ENTRY_POINT_GROUP, BUILTIN_MODULES)


def register_plugin(kind: str, name: str, parameters: Iterable[ParameterSpec] = (),
                    description: str = '') -> Callable[[Factory], Factory]:
    """Return a decorator registering a factory on the package registry.

    Args:
        kind: ``'sensor'`` or ``'motor'``.
        name: type name configurations will use.
        parameters: the parameters the type takes.
        description: one line saying what the type is.
    """
    return REGISTRY.register(kind, name, parameters, description)


def create_plugin(kind: str, config: Mapping[str, Any], **context: Any) -> Any:
    """Create an instance from a configuration mapping (see ``PluginRegistry.create``)."""
    return REGISTRY.create(kind, config, **context)


def describe_plugins() -> str:
    """Return every registered sensor and motor type with its parameters, as text."""
    return REGISTRY.describe()
