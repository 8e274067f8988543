"""The child of the SSH front door's tests (tests/test_net_ssh.py): says its pid, its
argv, TERM, LANG, controlling terminal and data folder, then its size (again at every SIGWINCH), and
echoes the keys it reads in raw mode until "q"; a hang-up it answers "HUP" and leaves, or
ignores with "stubborn"."""
import fcntl, os, signal, struct, sys, termios, tty

def size():
    rows, cols = struct.unpack("hh", fcntl.ioctl(1, termios.TIOCGWINSZ, b"\0" * 4))
    return cols, rows

def show(*_):
    os.write(1, ("SIZE %dx%d\r\n" % size()).encode())

def hang_up(*_):
    os.write(1, b"HUP\r\n")
    os._exit(0)

signal.signal(signal.SIGHUP, signal.SIG_IGN if "stubborn" in sys.argv else hang_up)
signal.signal(signal.SIGWINCH, show)
tty.setraw(0)          # first: a key typed before the raw mode would be flushed with it
os.write(1, ("PID %d ARGS %s TERM %s LANG %s CTTY %s\r\n" % (
    os.getpid(), " ".join(sys.argv[1:]), os.environ.get("TERM"), os.environ.get("LANG"),
    os.ttyname(0) if os.isatty(0) else "-")).encode())
os.write(1, ("DIR %s\r\n" % os.environ.get("TACTICAL_SAVE_DIR")).encode())
os.write(1, ("BACK %s\r\n" % os.environ.get("TACTICAL_SSH_BACK")).encode())
show()
while True:
    try:
        b = os.read(0, 1024)
    except InterruptedError:
        continue
    if not b or b"q" in b:
        break
    os.write(1, ("GOT %r\r\n" % b).encode())
