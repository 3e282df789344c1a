"""detect-secrets loads without ``requests`` (recall.ds_offline), and still finds secrets.

Each case runs in a fresh interpreter: whether the real ``requests`` was imported first is the
point, and this test process may have it already.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_scan_loads_no_http_client_and_still_refuses_a_token() -> None:
    out = run(
        f"""
        import sys
        from recall import secrets_scan

        assert secrets_scan.refusal({{"details": "token {TOKEN}"}}) is not None
        assert secrets_scan.scan("AWS key AKIA" + "KTAIPPAT6CVJJEEV") != []
        assert "detect_secrets.plugins.github_token" in sys.modules
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("requests", "urllib3")))
        """
    )
    assert out.strip() == "[]"


def test_the_stand_in_refuses_any_request_and_leaves_the_real_one_importable() -> None:
    out = run(
        """
        from recall import secrets_scan
        from recall.ds_offline import RequestException

        secrets_scan.scan("x = 1")
        from detect_secrets.plugins import base, slack

        try:
            slack.requests.post("https://slack.com/api/auth.test", data={})
        except base.requests.exceptions.RequestException as error:
            assert isinstance(error, RequestException)
            print("refused")
        import requests  # the real one, for whoever wants it later

        print(hasattr(requests, "Session"))
        """
    )
    assert out.split() == ["refused", "True"]


def test_a_process_that_loaded_requests_keeps_it_for_detect_secrets() -> None:
    out = run(
        f"""
        import requests
        from recall import secrets_scan

        assert secrets_scan.refusal({{"details": "token {TOKEN}"}}) is not None
        from detect_secrets.plugins import base

        print(base.requests is requests)
        """
    )
    assert out.strip() == "True"


def test_a_detect_secrets_that_asks_the_stand_in_for_more_loads_with_the_real_one() -> None:
    # As a later detect-secrets release would: a name at load that the stand-in lacks.
    out = run(
        f"""
        from recall import ds_offline, secrets_scan

        made = ds_offline.stand_in

        def lacking():
            module = made()
            del module.Response
            return module

        ds_offline.stand_in = lacking
        assert secrets_scan.refusal({{"details": "token {TOKEN}"}}) is not None
        from detect_secrets.plugins import base

        print(hasattr(base.requests, "Session"))
        """
    )
    assert out.strip() == "True"
