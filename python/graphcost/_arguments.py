"""Python's conventions at the package's edge: paths as str or os.PathLike, and a file that cannot
be opened reported as the OSError Python code expects (FileNotFoundError, PermissionError,
IsADirectoryError, with errno and filename) before the C++ core is asked to read it."""
import errno
import os


def path_text(path, name):
    """`path` (str, bytes or os.PathLike) as a str; TypeError naming the argument otherwise."""
    try:
        return os.fsdecode(os.fspath(path))
    except TypeError:
        raise TypeError(f"{name}: expected a path (str or os.PathLike), got {type(path).__name__}") from None


def _refuse(code, path):
    kind = {errno.ENOENT: FileNotFoundError, errno.EACCES: PermissionError, errno.EISDIR: IsADirectoryError,
            errno.ENOTDIR: NotADirectoryError}[code]
    raise kind(code, os.strerror(code), path)


def input_path(path, name, folder=False):
    """A path to read: a file (or, with folder=True, a file or a folder) that exists and can be read."""
    text = path_text(path, name)
    if not os.path.exists(text):
        _refuse(errno.ENOENT, text)
    if os.path.isdir(text) and not folder:
        _refuse(errno.EISDIR, text)
    if not os.access(text, os.R_OK | (os.X_OK if os.path.isdir(text) else 0)):
        _refuse(errno.EACCES, text)
    return text


def folder_path(path, name):
    """A folder to read: it must exist and be a folder."""
    text = input_path(path, name, folder=True)
    if not os.path.isdir(text):
        _refuse(errno.ENOTDIR, text)
    return text


def output_path(path, name):
    """A path to write: its folder must exist and be writable."""
    text = path_text(path, name)
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        _refuse(errno.ENOENT, folder)
    if not os.access(folder, os.W_OK | os.X_OK):
        _refuse(errno.EACCES, folder)
    return text
