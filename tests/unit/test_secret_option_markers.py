"""Found by a hostile review: c645608's guard (`with_options_of` refuses a SecretInput field
offered to the CLI)
reads only a field's top-level metadata, and only SecretInput instances. Two ordinary ways to
write the marker pass it, and the secret becomes a CLI option (argv: ps, shell history, CI
logs), which the commit says can no longer happen:
- the optional written around the Annotated (`Annotated[str, SecretInput()] | None`): pydantic
  leaves the marker inside the union, where `is_secret_field` does not look;
- the marker class itself (`Annotated[str, SecretInput]`), as a marker with no arguments reads.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest

from svc.cli.options import with_options_of
from svc.operations.fields import Request, SecretInput


class OptionalAroundTheMarker(Request):
    code: Annotated[str, SecretInput()] | None = None


class TheMarkerClass(Request):
    code: Annotated[str, SecretInput] = ""


@pytest.mark.parametrize("request_model", [OptionalAroundTheMarker, TheMarkerClass])
def test_a_secret_field_is_never_a_cli_option_however_marked(
    request_model: type[Request],
) -> None:
    def command(**given: Any) -> None:
        pass

    with pytest.raises(TypeError, match="secret fields as CLI options"):
        with_options_of(request_model, command)  # happened: accepted, `--code` is an option
