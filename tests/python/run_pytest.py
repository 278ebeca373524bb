"""ctest's entry to one pytest file: pytest from this interpreter, no cache
directory or bytecode written into the source tree, and exit 77 (ctest's
SKIP_RETURN_CODE) with the reason when pytest is missing or every test of the
file was skipped, so a skip never shows as a pass.

    python3 run_pytest.py TEST_FILE [PYTEST_ARGS...]
"""
import sys

sys.dont_write_bytecode = True
try:
    import pytest
except ImportError:
    print(f"skipped: pytest is not installed for {sys.executable} (Debian: python3-pytest)")
    sys.exit(77)


class Outcomes:
    def __init__(self):
        self.passed = self.skipped = 0

    def pytest_runtest_logreport(self, report):
        if report.when == "call" and report.passed:
            self.passed += 1
        elif report.skipped:
            self.skipped += 1


outcomes = Outcomes()
rc = pytest.main(["-p", "no:cacheprovider", "-rs", "-q", *sys.argv[1:]], plugins=[outcomes])
if rc == 0 and outcomes.passed == 0 and outcomes.skipped > 0:
    sys.exit(77)
sys.exit(rc)
