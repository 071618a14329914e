"""`sandbox`: the local emulator of the whole service, and the steps a person takes in it.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from svc.operations.declare import SANDBOX, Operation, by_hand
from svc.operations.fields import Flag, Positional, Request


class SandboxServeRequest(Request):
    """Where the emulator listens, how fast its clock runs and what its 402 asks for."""

    host: Annotated[str, Flag("--host", "ADDRESS")] = Field(
        "127.0.0.1", description="Address to bind (loopback only unless --allow-remote)."
    )
    port: Annotated[int, Flag("--port", "N")] = Field(8402, description="Port; 0 picks a free one.")
    clock_speed: Annotated[float, Flag("--clock-speed", "X")] = Field(
        1.0, description="Sandbox seconds per real second."
    )
    quiet: Annotated[bool, Flag("--quiet", short="-q")] = Field(False, description="No access log.")
    allow_remote: Annotated[bool, Flag("--allow-remote")] = Field(
        False,
        description="Listen on a non-loopback address too (the sandbox has no authentication).",
    )
    network: Annotated[str, Flag("--network", "testnet|mainnet")] = Field(
        "testnet",
        description="What the 402 asks for: Base Sepolia test USDC (default) or Base mainnet USDC.",
    )


class SandboxApproveRequest(Request):
    """The task whose pending payment the person approves."""

    task_id: Annotated[str, Positional("ID")] = Field(description="The task.")


class SandboxClaimCodeRequest(Request):
    """The claim link whose code is shown: the newest pending one unless named."""

    attempt: Annotated[str | None, Flag("--attempt", "ID")] = Field(
        None, description="A claim link's attempt id (default: the newest)."
    )


class SandboxMintIdJagRequest(Request):
    """The assertion asked of the sandbox's identity provider; the flags that break it test
    the refusals."""

    email: Annotated[str, Flag("--email", "EMAIL")] = Field(description="The person's e-mail.")
    issuer: Annotated[str, Flag("--issuer")] = Field(
        "a", description="Provider: a, b (trusted), untrusted, or an issuer URL."
    )
    aud: Annotated[str | None, Flag("--aud")] = Field(
        None, description="Audience (default: the platform's)."
    )
    unverified: Annotated[bool, Flag("--unverified")] = Field(
        False, description="email_verified: false."
    )
    exp_seconds: Annotated[int, Flag("--exp-seconds")] = Field(
        300, description="exp, seconds from now."
    )
    auth_age_seconds: Annotated[int, Flag("--auth-age-seconds")] = Field(
        60, description="How long ago the person signed in."
    )
    typ: Annotated[str, Flag("--typ")] = Field("oauth-id-jag+jwt", description="JWT header typ.")
    bad_signature: Annotated[bool, Flag("--bad-signature")] = Field(
        False, description="Break the signature."
    )


class SandboxPayCardRequest(Request):
    """The card payment whose page is pressed (the newest waiting unless named), and which
    button."""

    request_id: Annotated[str | None, Positional("REQUEST_ID")] = Field(
        None, description="The request (default: the newest card payment waiting)."
    )
    decline: Annotated[bool, Flag("--decline")] = Field(
        False, description="Press Decline instead of Pay."
    )


class SandboxTagsRequest(Request):
    """No arguments: every scenario tag is listed."""


SANDBOX_OPERATIONS: tuple[Operation[Any], ...] = (
    by_hand("sandbox serve", SANDBOX, request=SandboxServeRequest),
    by_hand("sandbox approve", SANDBOX, request=SandboxApproveRequest),
    by_hand("sandbox claim-code", SANDBOX, request=SandboxClaimCodeRequest),
    by_hand("sandbox mint-id-jag", SANDBOX, request=SandboxMintIdJagRequest),
    by_hand("sandbox pay-card", SANDBOX, request=SandboxPayCardRequest),
    by_hand("sandbox tags", SANDBOX, request=SandboxTagsRequest),
)
