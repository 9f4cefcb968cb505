#!/usr/bin/env python3
"""The doc-command checker catches what it promises to: planted wrong docs fail, a right one passes."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_doc_commands.py")
PLANTED = os.path.join(HERE, "planted")


def check(name, *flags):
    done = subprocess.run([sys.executable, CHECKER, *flags, os.path.join(PLANTED, name)],
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


class PlantedDocs(unittest.TestCase):
    def test_right_commands_and_outputs_pass(self):
        status, out = check("good.md")
        self.assertEqual(status, 0, out)
        self.assertIn("6 command(s), 1 marked", out)

    def test_a_wrong_command_fails_with_its_line(self):
        status, out = check("wrong_status.md")
        self.assertEqual(status, 1, out)
        self.assertRegex(out, r"FAIL .*wrong_status\.md:4: .*exit status 2, the doc says 0")

    def test_a_wrong_output_fails(self):
        status, out = check("wrong_output.md")
        self.assertEqual(status, 1, out)
        self.assertIn("its output differs from the doc's", out)
        self.assertIn("walk rows 32", out)

    def test_commands_the_checker_cannot_run_are_refused(self):
        status, out = check("bad_format.md", "--lint")
        self.assertEqual(status, 1, out)
        for line, message in ((5, "an indented code block"), (7, "not `sh`"),
                              (12, "a command outside a console block"), (15, "unknown console attribute 'needs=moon'"),
                              (19, "must name its language"), (22, "a line of 230 characters"),
                              (24, "`console record` belongs in docs/measurements/"),
                              (29, "`\\| head` can end the command with SIGPIPE")):
            self.assertRegex(out, rf"bad_format\.md:{line}: .*{message}", out)


    def test_code_commonmark_shows_is_code_wherever_it_is_written(self):
        status, out = check("hidden.md", "--lint")
        self.assertEqual(status, 1, out)
        for line, message in ((4, "a command outside a console block"), (7, "code in HTML"),
                              (11, "an indented code block"), (14, "a command outside a console block"),
                              (17, "a command outside a console block")):
            self.assertRegex(out, rf"hidden\.md:{line}: .*{message}", out)

    def test_a_command_in_a_block_quote_or_a_pipeline_is_checked(self):
        status, out = check("hidden_runs.md")
        self.assertEqual(status, 1, out)
        for line in (4, 8):  # pipefail: the pipeline fails with lego
            self.assertRegex(out, rf"hidden_runs\.md:{line}: .*exit status 2, the doc says 0", out)


if __name__ == "__main__":
    unittest.main()
