# SPDX-License-Identifier: BSD-3-Clause
"""What the Python end-to-end test scripts share."""


def expect(exc, fn, text=""):
    """Runs fn; it must raise exc with text in its message, which is returned."""
    try:
        fn()
    except exc as e:
        assert text in str(e), "%s: %r lacks %r" % (exc.__name__, str(e), text)
        return str(e)
    raise AssertionError("no %s" % exc.__name__)
