"""``pixweb.paths``: an escaped ``/`` (and ``%``) stays in its path segment for routing, and a
path parameter that may hold one reads it back as the client meant it."""

from __future__ import annotations

from urllib.parse import quote

from hypothesis import given
from hypothesis import strategies as st

from pixweb.paths import routed_path, segment_text


def test_a_path_with_no_escaped_slash_or_percent_is_routed_as_the_server_decoded_it() -> None:
    assert routed_path(b"/cob/abc") is None
    assert routed_path(b"/webhook/jo%C3%A3o@example.com") is None
    assert routed_path(b"/cob/abc?x=%2F") is None  # the query string is not the path


def test_escaped_slashes_and_percents_stay_in_their_segment_the_rest_is_decoded() -> None:
    assert routed_path(b"/webhook/a%2fb%20c@x") == "/webhook/a%2Fb c@x"
    assert routed_path(b"/cob/ab%2F..%2Fcd?k=v") == "/cob/ab%2F..%2Fcd"
    assert routed_path(b"/webhook/a%252Fb") == "/webhook/a%252Fb"
    assert segment_text("a%252Fb") == "a%2Fb"  # an escaped "%2F" is text, not a slash
    assert segment_text("a%2Fb%25c") == "a/b%c"


@given(st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=4))
def test_any_segments_quoted_by_a_client_are_routed_as_those_segments(segments: list[str]) -> None:
    raw = "/" + "/".join(quote(segment, safe="") for segment in segments)
    routed = routed_path(raw.encode())
    if routed is None:  # nothing escaped a / or a %: the server's decoding stands
        assert all("/" not in segment and "%" not in segment for segment in segments)
        return
    parts = routed.split("/")[1:]
    assert [segment_text(part) for part in parts] == segments
