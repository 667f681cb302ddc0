"""A model file where a case name goes: a study's `RunSpec(label, "model.toml")`, the study
`clearance-sweep --set case=model.toml`, and `nlpmbd animate` of a model file's result (its case
rebuilt from the file meta.json records, to draw its joints).

A spec carries the file's bytes, read (and checked) where the spec is made: a worker in another
directory or on another machine builds the same model, and an edited file is another spec (its
SHA-256 is part of the spec), whose earlier runs are not reused. A robot file (.urdf, .xml)
carries its converted model file (io/robot_model.py).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The names of files `run`, studies and sweeps take as a case.
SUFFIXES = (".toml", ".urdf", ".xml")


def is_model_file(name: object) -> bool:
    """Whether `name` names a model file (or a robot file) rather than a built-in case."""
    return isinstance(name, str) and name.endswith(SUFFIXES)


@dataclass(frozen=True)
class ModelSource:
    """A model file's bytes, with its name as given, its absolute path and its error label."""

    file: str
    path: str
    data: bytes
    label: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def case(self) -> Any:
        """The file's Case (its [parameters], its [options] as option defaults)."""
        from ..io.model_file import model_from_bytes
        from ..run.options import SimulationOptions

        model = model_from_bytes(
            self.data, Path(self.file), options=SimulationOptions, label=self.label
        )
        return model.case

    def record(self, name: str) -> dict[str, str]:
        """meta.json's "source" of a run of this file (apps/cli_resume.py)."""
        return {"kind": "model file", "name": name, "file": self.file, "path": self.path} | {
            "sha256": self.sha256
        }


def read_source(name: str, params: Mapping[str, Any] | None = None) -> ModelSource:
    """The model file (or robot file) `name`, read and checked with the parameter values
    `params` (InputError naming the file and key)."""
    path = Path(name)
    if name.endswith((".urdf", ".xml")):
        from ..io.robot_annotations import beside
        from ..io.robot_model import convert

        data = convert(path).encode()
        marks = beside(path)
        label = f"{path} (converted with {marks})" if marks.is_file() else f"{path} (converted)"
    else:
        from ..io.model_file import read_model_bytes

        data, label = read_model_bytes(path), name
    source = ModelSource(name, os.path.abspath(name), data, label)
    source.case().resolve(params)  # a bad file or value: an error now, not failed runs
    return source
