"""`python -m svc_sandbox serve [--host] [--port] [--clock-speed] [--quiet] [--allow-remote]
[--network testnet|mainnet]`."""

from __future__ import annotations

import argparse
import contextlib
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="svc_sandbox", description="Local service emulator.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the sandbox until interrupted")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8402, help="0 picks a free port")
    serve.add_argument("--clock-speed", type=float, default=1.0, help="sandbox seconds per second")
    serve.add_argument("--quiet", action="store_true", help="no access log")
    serve.add_argument("--allow-remote", action="store_true", help="allow a non-loopback host")
    serve.add_argument(
        "--network",
        choices=("testnet", "mainnet"),
        default="testnet",
        help="what the 402 asks for: Base Sepolia USDC (default) or Base mainnet USDC",
    )
    args = parser.parse_args(argv)

    from svc_sandbox.server import is_loopback
    from svc_sandbox.server import serve as run

    if not args.allow_remote and not is_loopback(args.host):
        parser.error(f"--host {args.host} is not loopback; add --allow-remote to expose it")
    if args.clock_speed <= 0:
        parser.error("--clock-speed must be > 0")
    with contextlib.suppress(KeyboardInterrupt):
        run(
            args.host,
            args.port,
            args.clock_speed,
            args.quiet,
            allow_remote=args.allow_remote,
            network=args.network,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
