"""What each count and figure of a run means, in one short definition each, for every
place that shows them (the summary line, report.html, ``cooptest coverage`` and
``cfa``): one program has three goal counts (report.json's, which ``cfa`` splits in
two, and TestCov's, which ``coverage`` counts) and three coverage figures, and a user
shown two numbers under one name cannot tell which to believe."""
from __future__ import annotations

GOAL = "a goal: one outcome of a condition, && and || operands apart, or one reach_error() call"
COV_B = "covered/goals"
COV_F = "covered/(goals-infeasible)"
TESTCOV = "TestCov's own goals: both arms of each if, each loop's body and exit, each case"
TESTCOV_SHORT = "of TestCov's goals"
