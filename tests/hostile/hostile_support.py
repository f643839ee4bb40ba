"""What the hostile-input scripts share (hostile_inputs.py, hostile_hlo.py): running a command
bounded in time, with its own peak RSS; checking its exit code, message and RSS; counting passes and
failures; finding partial files left behind."""
import hashlib
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time

MIB = 1 << 20
passed = failed = 0


class Run:
    def __init__(self, status, out, err, rss_mib, seconds):
        self.status, self.out, self.err, self.rss_mib, self.seconds = status, out, err, rss_mib, seconds


def run(args, env=None, timeout=60, address_space=None):
    """Runs a command; its own peak RSS comes from wait4, not from this process's children total."""
    def limit():
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    started = time.monotonic()
    full_env = dict(os.environ, **(env or {}))
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
                               preexec_fn=limit)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        return Run(None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), 0, timeout)
    # communicate() reaped the child; its rusage was recorded by the kernel in RUSAGE_CHILDREN only
    # as a maximum, so run the command under wait4 instead when the RSS matters (see rss()).
    return Run(process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), 0,
               time.monotonic() - started)


def rss_run(args, env=None, timeout=120):
    """Like run(), with the command's own peak RSS (MiB) from wait4."""
    started = time.monotonic()
    full_env = dict(os.environ, **(env or {}))
    out_file, err_file = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    process = subprocess.Popen(args, stdout=out_file, stderr=err_file, env=full_env)
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            process.kill()
            os.wait4(process.pid, 0)
            status, usage = None, None
            break
        time.sleep(0.02)
    out_file.seek(0)
    err_file.seek(0)
    code = None if status is None else (os.waitstatus_to_exitcode(status))
    return Run(code, out_file.read().decode("utf-8", "replace"), err_file.read().decode("utf-8", "replace"),
               usage.ru_maxrss / 1024 if usage else 0, time.monotonic() - started)


def check(name, condition, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok      {name}")
    else:
        failed += 1
        print(f"FAILED  {name}" + (f"\n        {detail}" if detail else ""))


def expect(name, result, status, pattern=None, max_rss_mib=None):
    """The command exited with `status`, its stderr matches `pattern`, its RSS stayed under the cap."""
    problems = []
    if result.status != status:
        problems.append(f"exit {result.status} (expected {status})")
    if pattern and not re.search(pattern, result.err):
        problems.append(f"stderr does not match /{pattern}/")
    if max_rss_mib is not None and result.rss_mib > max_rss_mib:
        problems.append(f"peak RSS {result.rss_mib:.0f} MiB > {max_rss_mib} MiB")
    shown = f"{name} (peak RSS {result.rss_mib:.0f} MiB)" if max_rss_mib is not None else name
    check(shown, not problems, "; ".join(problems) + f"\n        stderr: {result.err.strip()[:400]!r}")


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def partial_files(root):
    return [os.path.join(d, f) for d, _, files in os.walk(root) for f in files if f.endswith(".partial")]


def run_cases(cases, prefix):
    """Runs cases(work) in a fresh temporary folder (removed after), prints the counts and returns
    the exit status: 0 when every check passed."""
    work = tempfile.mkdtemp(prefix=prefix)
    try:
        cases(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
