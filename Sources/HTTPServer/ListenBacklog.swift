import Foundation

/// How many connections the kernel may hold for the server before it accepts them.
///
/// A listener's queue of completed handshakes is `min(backlog, net.core.somaxconn)` long; when
/// it is full the kernel drops further SYNs and each of those clients retransmits after 1 s.
/// A restart brings every phone back within a second or two, so the queue should be as long
/// as the kernel allows: the default is `somaxconn` itself (read at start), not a fixed number
/// that would silently undercut an operator who raised it.
public enum ListenBacklog {
    static let somaxconnPath = "/proc/sys/net/core/somaxconn"
    /// When `/proc` cannot be read (not Linux, a sandbox): Linux's default since 5.4.
    static let fallback = 4096

    /// The kernel's cap (`net.core.somaxconn`), nil when it cannot be read.
    public static func kernelMaximum() -> Int? {
        guard let text = try? String(contentsOfFile: somaxconnPath, encoding: .utf8),
              let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0
        else { return nil }
        return value
    }

    /// The backlog passed to listen(2): the configured value, or the kernel's cap.
    static func resolve(configured: Int?, kernelMaximum: Int?) -> Int32 {
        Int32(clamping: configured ?? kernelMaximum ?? fallback)
    }
}
