"""A table's values as one frozen, typed object read by attribute (``values.energy_dt``).

One rule names everything: a setting's attribute, and the field of the core config it
sets, is its name with each ``.`` written ``_`` (``field_name``): the ROS parameter
``incipient_slip.ratio`` is ``values.incipient_slip_ratio`` and
``MonitorConfig.incipient_slip_ratio``. A core config of one group of settings
(``epsilon.*``, ``criteria.*``, ``weights.*``) names its fields after the group's dot:
``epsilon.torsion`` is ``EpsilonConfig.torsion`` (``SettingValues.group``).
"""

from __future__ import annotations

from dataclasses import make_dataclass
from typing import Any, Iterable, Mapping

from grasp_monitor.core.errors import ConfigError
from grasp_monitor.core.settings import Setting


def field_name(setting: Setting | str) -> str:
    """Return the attribute (and core field) name of a setting: ``.`` written ``_``."""
    return (setting if isinstance(setting, str) else setting.name).replace('.', '_')


class SettingValues:
    """Base of every table's values: frozen dataclasses made by ``values_type``."""

    #: The setting names, in table order (set on each class).
    names: tuple[str, ...] = ()

    def by_name(self) -> dict[str, Any]:
        """Return the values by setting name, as a parameter file holds them."""
        return {name: getattr(self, field_name(name)) for name in self.names}

    def group(self, prefix: str) -> dict[str, Any]:
        """Return the values of settings ``<prefix>.<field>`` by field: a group's config."""
        start = prefix + '.'
        return {name[len(start):]: getattr(self, field_name(name)) for name in self.names
                if name.startswith(start)}

    # The simulator's, servos' and controller's conversions (nodes/*_parameters.py) read by
    # name, so that one function takes a node's values and a parameter file's dict alike.
    def __getitem__(self, name: str) -> Any:
        """Return the value of setting ``name`` (arrays as lists), as ``declare`` once did."""
        value = getattr(self, field_name(name))
        return list(value) if isinstance(value, tuple) else value

    def items(self):
        """Return the (setting name, value) pairs, as a parameter file's dict gives them."""
        return self.by_name().items()


_TYPES: dict[tuple, type] = {}


def values_type(table: Iterable[Setting]) -> type:
    """Return the frozen dataclass of ``table``'s values (one class per table's names and types).

    Raises:
        ConfigError: two settings share an attribute name (``a.b`` beside ``a_b``).
    """
    table = tuple(table)
    key = tuple((setting.name, setting.type_name) for setting in table)
    made = _TYPES.get(key)
    if made is None:
        names = [field_name(setting) for setting in table]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ConfigError(f'settings named alike once "." is "_": {", ".join(twice)}')
        made = _TYPES[key] = make_dataclass('Values', [
            (field_name(setting), tuple[setting.value_type, ...] if setting.is_array
             else setting.value_type) for setting in table], bases=(SettingValues,),
            frozen=True, namespace={'names': tuple(setting.name for setting in table)})
    return made


def setting_values(table: Iterable[Setting], values: Mapping[str, Any]) -> SettingValues:
    """Return ``table``'s values from ``values`` by setting name (a missing one: its default).

    Arrays become tuples. The values are taken as they are: the ROS parameters and
    the scenario's configuration check them first, and the core configs they build
    check them again with the field's name.
    """
    table = tuple(table)
    return values_type(table)(**{
        field_name(setting): tuple(value) if isinstance(value, (list, tuple)) else value
        for setting in table
        for value in (values.get(setting.name, setting.default),)})


def values_of(table: Iterable[Setting], values: Mapping[str, Any] | SettingValues
              ) -> SettingValues:
    """Return ``values`` as ``table``'s typed values: a node's already are, a file's become so."""
    return values if isinstance(values, SettingValues) else setting_values(table, values)
