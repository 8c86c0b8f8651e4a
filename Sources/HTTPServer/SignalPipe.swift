import CLinuxSys
import Glibc

/// Write end of the self-pipe; written by the signal handler, the only thing it does.
nonisolated(unsafe) private var signalPipeWriteFD: Int32 = -1

/// SIGTERM/SIGINT → a byte on a pipe the event loop watches. Installing a real handler (not
/// signalfd) works regardless of which thread the kernel picks, since every thread would need
/// the signal blocked for signalfd; the handler only calls write(2), which is async-signal-safe.
enum SignalPipe {
    /// Installs the handlers once per process and returns the read end (non-blocking).
    static func install() throws -> Int32 {
        if let existing = readFD { return existing }
        var fds: [Int32] = [0, 0]
        guard pipe2(&fds, Int32(O_NONBLOCK | O_CLOEXEC)) == 0 else {
            throw HTTPServerError.systemCall("pipe2", errno: errno)
        }
        signalPipeWriteFD = fds[1]
        readFD = fds[0]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(signalPipeWriteFD, &byte, 1)
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
        // The signal mask is inherited across exec: a parent that blocks SIGTERM (a test
        // harness's thread spawning us, some supervisors) would leave it pending forever and
        // the server unstoppable. Unblock both here; threads started later inherit this mask.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGTERM)
        sigaddset(&unblock, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        return fds[0]
    }

    nonisolated(unsafe) private static var readFD: Int32?
}
